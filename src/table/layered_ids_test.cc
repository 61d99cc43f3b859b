// Layered id indexes (table/layered_ids.h) against the flat merge: random sequences of inserts,
// rewrites and deletes (and writes that drop an emptied fragment, which renumber every row) are
// applied both ways, and every answer of the layered index — each live id's position and row,
// absent ids, positions answered through the layers, and the whole walk in position order —
// must equal the flat index's, which must equal a model's. The base is decoded from either
// revision of the stored payload.
#include "table/layered_ids.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "table/id_index_blocked.h"
#include "table/id_index_compact.h"
#include "table/index_delta.h"

namespace omnigraph::table {
namespace {

constexpr uint64_t kFragmentRows = 1u << 20;

// Live ids → (fragment id, row), and the version's fragments in manifest order.
struct Model {
  std::map<std::string, std::pair<std::string, uint32_t>> rows;
  std::vector<std::string> fragments;

  uint32_t FragmentIndex(const std::string& id) const {
    return static_cast<uint32_t>(std::find(fragments.begin(), fragments.end(), id) -
                                 fragments.begin());
  }
  RowRef RefOf(const std::string& id) const {
    const auto& [fragment, row] = rows.at(id);
    return RowRef{FragmentIndex(fragment), row};
  }
  TableManifest Manifest() const {
    TableManifest manifest;
    for (const std::string& f : fragments) {
      manifest.fragments.push_back(FragmentEntry{f, "data/" + f + ".ogf", kFragmentRows, 0, {}});
    }
    manifest.entity_count = rows.size();
    return manifest;
  }
  IdIndex Flat() const {
    std::string blob;
    std::vector<uint32_t> ends;
    std::vector<RowRef> refs;
    for (const auto& [id, where] : rows) {
      blob.append(id);
      ends.push_back(static_cast<uint32_t>(blob.size()));
      refs.push_back(RefOf(id));
    }
    return IdIndex(std::move(blob), std::move(ends), std::move(refs));
  }
};

std::string RandomId(std::mt19937_64& rng) {
  // Short ids from a small alphabet, so that rewrites, re-inserts and near neighbours are common.
  std::string id = "n";
  const int length = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < length; ++i) id.push_back(static_cast<char>('a' + rng() % 6));
  return id;
}

// `flat` may be a decoded blocked index: its point calls (which every index answers) are asked.
void ExpectSameIndex(const IdIndex& flat, const IdIndex& model) {
  ASSERT_EQ(flat.size(), model.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    ASSERT_EQ(*flat.IdAtPosition(i), model.IdAt(i)) << i;
    ASSERT_EQ(*flat.RefAtPosition(i), model.RefAt(i)) << i;
  }
}

// Every answer of `got` equals the flat index's. With `walk`, every position too (which makes
// got's flat copy); without, only up to kLayeredPositionalMax positions, answered by the layers.
void ExpectSameAnswers(const IdIndex& got, const IdIndex& flat, std::mt19937_64& rng, bool walk) {
  ASSERT_EQ(got.size(), flat.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    const std::string_view id = flat.IdAt(i);
    ASSERT_EQ(got.Position(id), static_cast<int64_t>(i)) << id;
    const RowRef* ref = got.Find(id);
    ASSERT_NE(ref, nullptr) << id;
    ASSERT_EQ(*ref, flat.RefAt(i)) << id;
  }
  for (int t = 0; t < 40; ++t) {
    const std::string id = RandomId(rng) + (t % 2 ? "" : "z");
    if (flat.Position(id) >= 0) continue;
    ASSERT_EQ(got.Position(id), -1) << id;
    ASSERT_EQ(got.Find(id), nullptr) << id;
  }
  if (flat.size() > 0) {
    for (uint64_t t = 0; t < kLayeredPositionalMax / 2; ++t) {
      const size_t i = rng() % flat.size();
      ASSERT_EQ(got.IdAt(i), flat.IdAt(i)) << i;
      ASSERT_EQ(got.RefAt(i), flat.RefAt(i)) << i;
    }
    EXPECT_EQ(got.entries_flattened(), 0u);
  }
  if (!walk) return;
  for (size_t i = 0; i < flat.size(); ++i) {
    ASSERT_EQ(got.IdAt(i), flat.IdAt(i)) << i;
    ASSERT_EQ(got.RefAt(i), flat.RefAt(i)) << i;
  }
  EXPECT_TRUE(std::ranges::equal(got.refs(), flat.refs()));
}

// One random write on `model`: its delta (against the model before it) and the new model.
IdsDelta RandomWrite(Model& model, int step, std::mt19937_64& rng) {
  // Sometimes a write drops a fragment left without a live row (renumbering every row after it).
  if (rng() % 8 == 0) {
    for (size_t f = 0; f < model.fragments.size(); ++f) {
      const std::string& id = model.fragments[f];
      if (std::none_of(model.rows.begin(), model.rows.end(),
                       [&](const auto& row) { return row.second.first == id; })) {
        model.fragments.erase(model.fragments.begin() + static_cast<long>(f));
        break;
      }
    }
  }
  // Mostly one to three changes, sometimes dozens.
  const int changes =
      rng() % 10 == 0 ? 10 + static_cast<int>(rng() % 60) : 1 + static_cast<int>(rng() % 3);
  std::map<std::string, bool> picked;  // id → added (else removed)
  for (int c = 0; c < changes; ++c) {
    std::string id = RandomId(rng);
    if (!model.rows.empty() && rng() % 2 == 0) {
      auto it = model.rows.begin();
      std::advance(it, static_cast<long>(rng() % model.rows.size()));
      id = it->first;
    }
    picked[id] = rng() % 3 != 0;
  }
  // An id both added and removed in one delta is added; a removed id that is not live is ignored.
  if (!picked.empty() && rng() % 4 == 0) picked.begin()->second = true;
  const std::string fragment = "f" + std::to_string(step);
  bool added_any = false;
  for (const auto& [id, added] : picked) added_any |= added;
  if (added_any) model.fragments.push_back(fragment);
  IdsDelta delta;
  uint32_t row = 0;
  std::vector<std::string> both;
  for (const auto& [id, added] : picked) {
    if (added) {
      model.rows[id] = {fragment, row++};
      delta.added.blob.append(id);
      delta.added.ends.push_back(static_cast<uint32_t>(delta.added.blob.size()));
      delta.refs.push_back(model.RefOf(id));
      if (rng() % 6 == 0) both.push_back(id);
    } else {
      model.rows.erase(id);
      both.push_back(id);
    }
  }
  std::sort(both.begin(), both.end());
  for (const std::string& id : both) {
    delta.removed.blob.append(id);
    delta.removed.ends.push_back(static_cast<uint32_t>(delta.removed.blob.size()));
  }
  return delta;
}

TEST(LayeredIdsTest, EveryAnswerEqualsTheFlatMergeOverRandomWrites) {
  size_t deepest = 0;
  uint64_t layered_steps = 0;
  uint64_t flattened_steps = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    Model model;
    model.fragments.push_back("f-base");
    const int base_rows = static_cast<int>(rng() % 600);
    for (int i = 0; i < base_rows; ++i) {
      model.rows[RandomId(rng) + std::to_string(i)] = {"f-base", static_cast<uint32_t>(i)};
    }
    IdIndex flat = model.Flat();
    TableManifest manifest = model.Manifest();
    // Each seed layers over a base decoded from the flat, the compact, the blocked or the
    // prefixed revision of the stored index (docs/format/indexes.md): all must extend like the
    // flat merge.
    const uint32_t revisions[] = {kIdsRevisionFlat, kIdsRevisionCompact, kIdsRevisionBlocked,
                                  kIdsRevisionPrefixed};
    const uint32_t revision = revisions[seed % 4];
    Result<IdIndex> decoded = IdIndex::Decode(
        storage::SharedBytes::FromString(flat.EncodeRevision(1, revision)), manifest, "t");
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    ASSERT_NO_FATAL_FAILURE(ExpectSameIndex(*decoded, flat));
    IdIndex layered = std::move(*decoded);
    for (int step = 0; step < 150; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      const IdsDelta delta = RandomWrite(model, step, rng);
      const TableManifest next = model.Manifest();
      Result<IdIndex> want = ApplyIdsDelta(flat, manifest, delta, next, "t");
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      ASSERT_NO_FATAL_FAILURE(ExpectSameIndex(*want, model.Flat()));
      Result<IdIndex> got = layered.Extend(manifest, delta, next, "t");
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_LE(got->layers(), kIdLayersMax);
      deepest = std::max(deepest, got->layers());
      layered_steps += got->layered() ? 1 : 0;
      const bool walk = rng() % 4 == 0;
      flattened_steps += walk && got->layered() ? 1 : 0;
      ASSERT_NO_FATAL_FAILURE(ExpectSameAnswers(*got, *want, rng, walk));
      flat = std::move(*want);
      layered = std::move(*got);
      manifest = next;
    }
  }
  // The sequences did exercise layers several deep, and their flat copies.
  EXPECT_GE(deepest, 4u);
  EXPECT_GT(layered_steps, 1000u);
  EXPECT_GT(flattened_steps, 100u);
}

// A delta whose count disagrees with the version is refused as the flat merge refuses it, and a
// row reference outside the version's fragments too.
TEST(LayeredIdsTest, AnInconsistentDeltaIsCorruptionNamingTheObject) {
  Model model;
  model.fragments = {"f0"};
  for (int i = 0; i < 100; ++i) model.rows["id" + std::to_string(1000 + i)] = {"f0", 0};
  const IdIndex base = model.Flat();
  const TableManifest manifest = model.Manifest();
  IdsDelta delta;
  delta.added.blob = "zz";
  delta.added.ends = {2};
  delta.refs = {RowRef{1, 0}};
  Model next_model = model;
  next_model.fragments.push_back("f1");
  TableManifest next = next_model.Manifest();  // Still 100 live rows: the delta gives 101.
  Result<IdIndex> got = base.Extend(manifest, delta, next, "obj-name");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().ToString().find("obj-name"), std::string::npos);
  next.entity_count = 101;
  delta.refs = {RowRef{2, 0}};  // No fragment 2.
  EXPECT_FALSE(base.Extend(manifest, delta, next, "obj-name").ok());
  delta.refs = {RowRef{1, 0}};
  Result<IdIndex> ok = base.Extend(manifest, delta, next, "obj-name");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(ok->layered());
  EXPECT_EQ(ok->entries_merged(), 1u);
  EXPECT_EQ(ok->IdAt(100), "zz");
}

}  // namespace
}  // namespace omnigraph::table

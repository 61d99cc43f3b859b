// The manifest's scan (decision 243): it reads every manifest EncodeManifest writes, without a
// JSON document, and whatever bytes it is given, DecodeManifest answers exactly what the DOM
// reading answers — the same value, or the same error naming the same object.
#include <gtest/gtest.h>

#include <random>

#include "table/fragment_format.h"
#include "table/model_table.h"
#include "table/table_manifest_internal.h"

namespace omnigraph::table {
namespace {

using internal::DecodeManifestFromJson;
using internal::ScanManifest;

// A manifest with every optional shape: deletions, column offsets, ids inline or in a side file,
// null members, List and Vector columns, names beyond ASCII, a negative created_at.
TableManifest RandomManifest(std::mt19937_64& rng) {
  auto pick = [&](uint64_t n) { return rng() % n; };
  TableManifest m;
  m.table_key = pick(4) == 0 ? "Persön 中" : "edge:Knows";
  m.stable_table_id = pick(1000);
  m.incarnation = 1 + pick(5);
  m.staged_version = kStagedVersionBit | rng();
  if (pick(3) != 0) m.base_staged_version = kStagedVersionBit | rng();
  m.target_version = rng();
  m.transaction_uuid = "01890a5d-ac96-774b-bcce-b302099a80" + std::to_string(pick(100));
  m.operation = static_cast<Operation>(pick(6));
  m.schema = ModelSchema(/*edge=*/pick(2) == 0);
  m.schema.push_back({1001, "tags", DataType::List(TypeId::kString), true});
  m.schema.push_back({1002, "vec", DataType::Vector(3), false});
  const size_t fragments = pick(40);
  for (size_t i = 0; i < fragments; ++i) {
    FragmentEntry f;
    f.id = "01a248c2-87b1-7d18-9d2d-" + std::to_string(1000000 + i);
    f.path = "data/" + f.id + ".ogf";
    f.rows = 1 + pick(70000);
    f.bytes = 100 + pick(3'000'000);
    if (pick(4) == 0)
      f.deletion = DeletionRef{"deletions/d" + std::to_string(i) + ".del", 1 + pick(f.rows),
                               pick(5000), rng()};
    if (pick(5) == 0 && f.bytes > 100'000) {
      for (size_t c = 0; c <= m.schema.size(); ++c) f.column_offsets.push_back(kHeaderBytes + c);
    }
    m.entity_count += f.live_rows();
    m.fragments.push_back(std::move(f));
  }
  m.inserted_ids_count = pick(100);
  m.updated_ids_count = pick(100);
  if (pick(3) == 0) {
    m.deleted_ids_path = "deleted/x.json";
    m.deleted_ids_count = pick(1000);
  } else {
    for (size_t i = pick(4); i > 0; --i) m.deleted_ids.push_back("p" + std::to_string(i));
    m.deleted_ids_count = m.deleted_ids.size();
  }
  m.created_at = pick(8) == 0 ? -static_cast<int64_t>(pick(1000)) : 1796517061961017;
  if (pick(4) != 0) m.staged_against = StagedAgainst{"main", pick(100)};
  return m;
}

TEST(TableManifestScanTest, ReadsEveryManifestEncodeWrites) {
  std::mt19937_64 rng(243);
  for (int i = 0; i < 300; ++i) {
    const TableManifest m = RandomManifest(rng);
    const std::string bytes = EncodeManifest(m);
    std::optional<TableManifest> scanned = ScanManifest(bytes);
    ASSERT_TRUE(scanned.has_value()) << bytes;
    EXPECT_EQ(*scanned, m);
    // Whitespace between tokens, as another JSON writer might leave, reads the same.
    std::optional<TableManifest> pretty = ScanManifest(ParseJson(bytes, "m")->dump(2));
    ASSERT_TRUE(pretty.has_value());
    EXPECT_EQ(*pretty, m);
  }
}

void ExpectSameAnswer(std::string_view bytes) {
  Result<TableManifest> got = DecodeManifest(bytes, "versions/d1.json");
  Result<TableManifest> dom = DecodeManifestFromJson(bytes, "versions/d1.json");
  ASSERT_EQ(got.ok(), dom.ok()) << bytes;
  if (got.ok()) {
    EXPECT_EQ(*got, *dom) << bytes;
    return;
  }
  EXPECT_EQ(got.status().code(), dom.status().code()) << bytes;
  EXPECT_EQ(got.status().message(), dom.status().message()) << bytes;
  EXPECT_EQ(got.status().object(), "versions/d1.json");
}

// Bytes damaged one edit at a time — a byte replaced by one that matters to JSON, dropped or
// added, or the document cut short — read exactly as the DOM reading reads them.
TEST(TableManifestScanTest, EveryAnswerIsTheDomReadings) {
  std::mt19937_64 rng(2430);
  constexpr std::string_view kPalette = "{}[]\",:-.0159eEnul tfa\\\n\x01\xC3\xA9\xFF";
  for (int i = 0; i < 40; ++i) {
    const std::string good = EncodeManifest(RandomManifest(rng));
    ExpectSameAnswer(good);
    for (int edit = 0; edit < 150; ++edit) {
      std::string bytes = good;
      const size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0: bytes[at] = kPalette[rng() % kPalette.size()]; break;
        case 1: bytes.erase(at, 1); break;
        case 2: bytes.insert(at, 1, kPalette[rng() % kPalette.size()]); break;
        default: bytes.resize(at); break;
      }
      ExpectSameAnswer(bytes);
      if (HasFatalFailure()) return;
    }
  }
}

// What EncodeManifest does not write goes the DOM way: a member this code does not know (kept in
// `extra`), a string with an escape, a member given twice.
TEST(TableManifestScanTest, WhatItDoesNotReadGoesTheDomWay) {
  std::mt19937_64 rng(7);
  TableManifest m = RandomManifest(rng);
  m.extra["future_member"] = {{"a", 1}};
  std::string bytes = EncodeManifest(m);
  EXPECT_FALSE(ScanManifest(bytes).has_value());
  Result<TableManifest> decoded = DecodeManifest(bytes, "m");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, m);

  m.extra = Json::object();
  m.table_key = "quote\"d";
  bytes = EncodeManifest(m);
  EXPECT_FALSE(ScanManifest(bytes).has_value());
  decoded = DecodeManifest(bytes, "m");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->table_key, "quote\"d");

  m.table_key = "Person";
  bytes = EncodeManifest(m);
  bytes.insert(1, "\"incarnation\":1,");
  EXPECT_FALSE(ScanManifest(bytes).has_value());
  EXPECT_EQ(DecodeManifest(bytes, "m").status().code(), Code::kCorruption);
}

}  // namespace
}  // namespace omnigraph::table

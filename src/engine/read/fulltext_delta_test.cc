// Full-text index deltas end to end (docs/design/fulltext.md "Deltas"): a small load or mutation
// stores a delta over its base's index, reading none of the base's fragments; a reader's chain
// gives the index a rebuild gives (payload bytes, hence BM25, phrases and fuzzy terms); a chain
// of eight is followed by a full index; a missing base or a damaged delta is rebuilt and
// replaced; a large write stores a full index; a write staged on a step without an index (a
// merge's delete step) stores a delta over the step's base.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/ops/load.h"
#include "engine/ops/merge.h"
#include "engine/read/query.h"
#include "engine/write/derived_indexes.h"
#include "engine/write/mutate.h"
#include "query/text/fulltext_version.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "storage/naming_store.h"
#include "table/derived.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Doc { slug: String @key  body: String? @index }
)";

constexpr std::string_view kQueries = R"(
query text($q: String) {
  match { $d: Doc  search($d.body, $q) }
  return { $d.slug, bm25($d.body, $q) as score }
  order { bm25($d.body, $q) desc, $d.slug }
  limit 50
}
query phrase($q: String) {
  match { $d: Doc  match_text($d.body, $q) }
  return { $d.slug } order { $d.slug }
}
query near($q: String) {
  match { $d: Doc  fuzzy($d.body, $q, 1) }
  return { $d.slug } order { $d.slug }
}
query remove($s: String) { delete Doc where slug = $s }
query rewrite($s: String, $b: String) { update Doc set { body: $b } where slug = $s }
)";

const char* const kWords[] = {"graph",  "storage", "index", "query",  "fragment", "version",
                              "commit", "branch",  "merge", "search", "vector",   "table"};

// Docs d[from, to) as load lines; `tag` is appended to every body.
std::string Docs(int from, int to, const std::string& tag = "") {
  std::string out;
  for (int i = from; i < to; ++i) {
    const std::string body = std::string(kWords[i % 12]) + " " + kWords[(i / 12) % 12] + " " +
                             kWords[(i * 7) % 12] + tag;
    // Every 50th document has no body: a row, not a document.
    const std::string field = i % 50 == 7 ? "" : R"(,"body":")" + body + "\"";
    out += R"({"type":"Doc","data":{"slug":"d)" + std::to_string(10000 + i) + "\"" + field + "}}\n";
  }
  return out;
}

class FullTextDeltaTest : public testing::Test {
 protected:
  static constexpr int kDocs = 400;  // Below the id index's threshold: no `ids` object either.

  void SetUp() override {
    memory_ = std::make_shared<storage::MemoryStore>();
    naming_ = std::make_shared<storage::NamingStore>(memory_);
    counting_ = std::make_shared<storage::CountingStore>(naming_);
    Result<std::unique_ptr<Graph>> g =
        Graph::Init(storage::Runtime::ForTest(counting_, 1), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
  }

  void LoadLines(const std::string& lines, LoadMode mode = LoadMode::kAppend) {
    Result<LoadResult> r = engine::Load(*graph_, "main", lines, mode, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  void Mutate(std::string_view name, const Json& params) {
    Result<MutationResult> r = engine::Mutate(*graph_, kQueries, name, params, {});
    ASSERT_TRUE(r.ok() && r->commit) << name << ": " << r.status().ToString();
  }

  // A process that has read nothing yet, over the same store.
  std::unique_ptr<Graph> Cold() {
    Result<std::unique_ptr<Graph>> g = Graph::Open(storage::Runtime::ForTest(counting_, 2));
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return g.ok() ? std::move(*g) : nullptr;
  }

  std::shared_ptr<const table::TableVersion> Head(Graph& graph) {
    Result<Snapshot> head = graph.SnapshotOfBranch("main");
    EXPECT_TRUE(head.ok());
    Result<std::shared_ptr<const table::TableVersion>> v = head->Table("node:Doc");
    EXPECT_TRUE(v.ok());
    return *v;
  }

  // Drops the head's stored `fts` object and reopens the writer, so nothing of it is cached.
  void DropHeadIndex() {
    std::shared_ptr<const table::TableVersion> v = Head(*Cold());
    ASSERT_TRUE(
        memory_->Delete(table::DerivedName(v->table(), v->manifest().staged_version, Kind())).ok());
    Result<std::unique_ptr<Graph>> g = Graph::Open(storage::Runtime::ForTest(counting_, 4));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
  }

  // The staged version the head's `fts` delta is over.
  uint64_t HeadDeltaBase() {
    Result<table::DerivedHeader> h = Head(*Cold())->ReadDerivedHeader(Kind());
    EXPECT_TRUE(h.ok() && h->delta);
    return h.ok() && h->delta ? h->delta->base_staged_version : 0;
  }

  uint64_t HeadStagedVersion() { return Head(*Cold())->manifest().staged_version; }

  uint32_t Field() {
    Result<Snapshot> head = graph_->SnapshotOfBranch("main");
    return query::text::FullTextFields(*head->catalog().FindByTableKey("node:Doc")).at(0);
  }
  std::string Kind() { return query::text::FullTextKind(Field()); }

  // The head's stored `fts` object: its depth (0 = full), or -1 when absent or damaged.
  int Depth(const table::TableVersion& version) {
    Result<table::DerivedHeader> h = version.ReadDerivedHeader(Kind());
    if (!h.ok()) return -1;
    return h->delta ? static_cast<int>(h->delta->depth) : 0;
  }
  int HeadDepth() { return Depth(*Head(*Cold())); }

  // The head's index read through its chain by a cold process, against a rebuild's payload.
  void ExpectChainEqualsRebuild() {
    std::unique_ptr<Graph> cold = Cold();
    std::shared_ptr<const table::TableVersion> v = Head(*cold);
    Result<std::shared_ptr<const table::IdIndex>> ids = v->SortedIds();
    ASSERT_TRUE(ids.ok());
    const table::IdIndex& index = **ids;
    Result<query::text::FullTextIndex> chained = query::text::ReadFullTextChain(
        *v, Kind(), query::text::VersionIds{static_cast<uint32_t>(index.size()), [&](uint32_t i) {
                                              return index.IdAt(i);
                                            }});
    ASSERT_TRUE(chained.ok()) << chained.status().ToString();
    Result<std::string> rebuilt = query::text::BuildFullTextPayload(*v, Field());
    ASSERT_TRUE(rebuilt.ok());
    EXPECT_EQ(chained->Encode(), *rebuilt);
  }

  // Every query's rows on `graph`, as text.
  std::string Answers(Graph& graph) {
    std::string out;
    const std::pair<const char*, Json> runs[] = {{"text", Json{{"q", "graph index"}}},
                                                 {"text", Json{{"q", "zebra"}}},
                                                 {"phrase", Json{{"q", "zebra crossing"}}},
                                                 {"near", Json{{"q", "zebrx"}}},
                                                 {"text", Json{{"q", "merge"}}}};
    for (const auto& [name, params] : runs) {
      Result<OrderedJson> r = RunReadJson(graph, kQueries, name, params);
      EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
      if (r.ok()) out += std::string(name) + " " + (*r)["rows"].dump() + "\n";
    }
    return out;
  }

  // What a process that rebuilds every index answers: the reference.
  std::string RebuiltAnswers() {
    std::shared_ptr<storage::MemoryStore> copy = std::make_shared<storage::MemoryStore>();
    Result<std::vector<storage::ObjectMeta>> all = storage::ListAll(*memory_, "");
    EXPECT_TRUE(all.ok());
    for (const storage::ObjectMeta& m : *all) {
      if (table::ParseDerivedName(m.name)) continue;
      EXPECT_TRUE(copy->Put(m.name, memory_->Get(m.name)->data).ok());
    }
    Result<std::unique_ptr<Graph>> g = Graph::Open(storage::Runtime::ForTest(copy, 3));
    EXPECT_TRUE(g.ok());
    return Answers(**g);
  }

  std::shared_ptr<storage::MemoryStore> memory_;
  std::shared_ptr<storage::NamingStore> naming_;
  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(FullTextDeltaTest, ATenRowAppendWritesOneSmallDeltaAndReadsNoBaseFragment) {
  LoadLines(Docs(0, kDocs));
  std::unique_ptr<Graph> cold = Cold();
  std::shared_ptr<const table::TableVersion> base = Head(*cold);
  EXPECT_EQ(Depth(*base), 0);
  LoadLines(Docs(kDocs, kDocs + 10, " zebra crossing"));
  // The load stored a delta; run its derived step again in a cold process, counting, after
  // removing what the load stored.
  std::shared_ptr<const table::TableVersion> v = Head(*Cold());
  EXPECT_EQ(Depth(*v), 1);
  const std::string name = table::DerivedName(v->table(), v->manifest().staged_version, Kind());
  const uint64_t delta_bytes = memory_->Get(name)->data.size();
  const uint64_t full_bytes =
      memory_->Get(table::DerivedName(v->table(), base->manifest().staged_version, Kind()))
          ->data.size();
  EXPECT_LT(delta_bytes * 4, full_bytes);
  ASSERT_TRUE(memory_->Delete(name).ok());
  cold = Cold();
  v = Head(*cold);
  Result<Snapshot> head = cold->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  (void)naming_->TakeGets();
  const storage::OpCounts before = counting_->Snapshot();
  DerivedBuildOptions options;
  options.fresh = true;
  const DerivedBuildOutcome out =
      BuildMissingDerived(head->catalog().FindByTableKey("node:Doc"), *v, options);
  const storage::OpCounts cost = counting_->Snapshot() - before;
  EXPECT_EQ(out.built, std::vector<std::string>{Kind()});
  // The base's manifest, the base's index header (one ranged GET), the new fragment (small: read
  // whole in one GET), and one conditional create; no base fragment.
  EXPECT_EQ(cost.gets, 3u) << cost.ToString();
  EXPECT_EQ(cost.put_if_absent, 1u) << cost.ToString();
  EXPECT_EQ(cost.writes(), 1u) << cost.ToString();
  EXPECT_EQ(cost.bytes_written, delta_bytes);
  const std::vector<std::string> gets = naming_->TakeGets();
  for (const std::string& got : gets) {
    for (const table::FragmentEntry& f : base->manifest().fragments) {
      EXPECT_EQ(got.find(f.path), std::string::npos) << "read the base's fragment " << got;
    }
  }
  EXPECT_EQ(Depth(*v), 1);
}

TEST_F(FullTextDeltaTest, TheFirstQueryReadsTheChainAndStoresNothing) {
  LoadLines(Docs(0, kDocs));
  LoadLines(Docs(kDocs, kDocs + 10, " zebra crossing"));
  std::unique_ptr<Graph> cold = Cold();
  ASSERT_NE(Head(*cold), nullptr);
  (void)naming_->TakeGets();
  const storage::OpCounts before = counting_->Snapshot();
  const std::string answers = Answers(*cold);
  const storage::OpCounts cost = counting_->Snapshot() - before;
  EXPECT_EQ(cost.writes(), 0u) << cost.ToString();
  int derived = 0, manifests = 0;
  for (const std::string& got : naming_->TakeGets()) {
    derived += table::ParseDerivedName(got).has_value();
    manifests += got.find("/versions/") != std::string::npos;
  }
  // The delta and the full index it is over, and the base version's manifest.
  EXPECT_EQ(derived, 2);
  EXPECT_EQ(manifests, 1);
  EXPECT_NE(answers.find("d10400"), std::string::npos);
  EXPECT_EQ(answers, RebuiltAnswers());
}

TEST_F(FullTextDeltaTest, DeletesUpdatesAndMergesMatchARebuild) {
  LoadLines(Docs(0, kDocs));
  Mutate("remove", Json{{"s", "d10003"}});  // A delete.
  EXPECT_EQ(HeadDepth(), 1);
  Mutate("rewrite", Json{{"s", "d10005"}, {"b", "zebra crossing at the index"}});  // An update.
  EXPECT_EQ(HeadDepth(), 2);
  // A merge load: five updates (one to null text, through its document without a body), five
  // new rows between and after the existing ids.
  LoadLines(Docs(10, 15, " zebra") + Docs(kDocs, kDocs + 5, " crossing zebra") +
                R"({"type":"Doc","data":{"slug":"d10003a","body":"zebra crossing"}})"
                "\n",
            LoadMode::kMerge);
  EXPECT_EQ(HeadDepth(), 3);
  ExpectChainEqualsRebuild();
  std::unique_ptr<Graph> cold = Cold();
  const std::string answers = Answers(*cold);
  // The phrase is found in rows of the base's fragment (the update) and of new fragments.
  EXPECT_NE(answers.find("phrase [{\"d.slug\":\"d10003a\"},{\"d.slug\":\"d10005\"}"),
            std::string::npos)
      << answers;
  EXPECT_EQ(answers, RebuiltAnswers());
}

TEST_F(FullTextDeltaTest, AChainOfEightIsFollowedByAFullIndex) {
  LoadLines(Docs(0, kDocs));
  for (int k = 1; k <= 9; ++k) {
    LoadLines(Docs(kDocs + 5 * k, kDocs + 5 * k + 5, k % 2 ? " zebra" : " crossing"));
    EXPECT_EQ(HeadDepth(), k % 9) << "write " << k;
    ExpectChainEqualsRebuild();
  }
  EXPECT_EQ(Answers(*Cold()), RebuiltAnswers());
}

TEST_F(FullTextDeltaTest, AMissingBaseIsRebuiltAndReplacesTheDelta) {
  LoadLines(Docs(0, kDocs));
  std::shared_ptr<const table::TableVersion> base = Head(*Cold());
  LoadLines(Docs(kDocs, kDocs + 10, " zebra crossing"));
  ASSERT_EQ(HeadDepth(), 1);
  ASSERT_TRUE(
      memory_->Delete(table::DerivedName(base->table(), base->manifest().staged_version, Kind()))
          .ok());
  EXPECT_EQ(Answers(*Cold()), RebuiltAnswers());
  EXPECT_EQ(HeadDepth(), 0);  // The reader stored the full index in the delta's place.
  // The writer, too, finds no base to build on: the next small write stores a full index... of a
  // base that now has one, so a delta again.
  LoadLines(Docs(kDocs + 10, kDocs + 12));
  EXPECT_EQ(HeadDepth(), 1);
  ExpectChainEqualsRebuild();
}

TEST_F(FullTextDeltaTest, ADamagedDeltaIsRebuiltAndReplaced) {
  LoadLines(Docs(0, kDocs));
  LoadLines(Docs(kDocs, kDocs + 10, " zebra crossing"));
  std::shared_ptr<const table::TableVersion> v = Head(*Cold());
  const std::string name = table::DerivedName(v->table(), v->manifest().staged_version, Kind());
  std::string bytes = memory_->Get(name)->data;
  bytes[bytes.size() - 3] ^= 0x5a;  // The payload: its checksum no longer matches.
  ASSERT_TRUE(memory_->Put(name, bytes).ok());
  EXPECT_EQ(Answers(*Cold()), RebuiltAnswers());
  EXPECT_EQ(HeadDepth(), 0);
}

// Damage inside a full index's payload under an envelope whose checksums cover it (a writer's
// defect, or a crafted object) decodes as an envelope, so the ordinary write would keep it: the
// reader that finds it damaged puts its rebuild over it.
TEST_F(FullTextDeltaTest, AFullIndexDamagedUnderAnIntactEnvelopeIsRebuiltAndReplaced) {
  LoadLines(Docs(0, kDocs));
  std::shared_ptr<const table::TableVersion> v = Head(*Cold());
  ASSERT_EQ(Depth(*v), 0);
  Result<std::shared_ptr<const std::string>> payload = v->ReadDerived(Kind());
  ASSERT_TRUE(payload.ok()) << payload.status().ToString();
  const std::string bad = (*payload)->substr(0, (*payload)->size() - 1);
  const std::string name = table::DerivedName(v->table(), v->manifest().staged_version, Kind());
  ASSERT_TRUE(memory_->Put(name, table::EncodeDerived(v->manifest(), Kind(), bad, nullptr)).ok());
  EXPECT_EQ(Depth(*Head(*Cold())), 0);  // The envelope decodes.
  EXPECT_EQ(Answers(*Cold()), RebuiltAnswers());
  ExpectChainEqualsRebuild();  // What the reader stored over it reads.
}

TEST_F(FullTextDeltaTest, AWriteOfMoreThanAnEighthOfTheRowsStoresAFullIndex) {
  LoadLines(Docs(0, kDocs));
  LoadLines(Docs(kDocs, kDocs + kDocs / 8));  // Exactly an eighth: a delta.
  EXPECT_EQ(HeadDepth(), 1);
  const int base = kDocs + kDocs / 8;
  LoadLines(Docs(base, base + base / 8 + 1));  // One more than an eighth of the base.
  EXPECT_EQ(HeadDepth(), 0);
  ExpectChainEqualsRebuild();
}

TEST_F(FullTextDeltaTest, AWriteOnATableWithoutAStoredIndexStoresNoDeltaFromAMutation) {
  LoadLines(Docs(0, kDocs));
  std::shared_ptr<const table::TableVersion> base = Head(*Cold());
  ASSERT_TRUE(
      memory_->Delete(table::DerivedName(base->table(), base->manifest().staged_version, Kind()))
          .ok());
  Mutate("remove", Json{{"s", "d10003"}});
  EXPECT_EQ(HeadDepth(), -1);  // No base index: the first reader builds it, as before.
  EXPECT_EQ(Answers(*Cold()), RebuiltAnswers());
  EXPECT_EQ(HeadDepth(), 0);
}

TEST_F(FullTextDeltaTest, ABranchMergeStoresADeltaOverTheTargetsIndex) {
  LoadLines(Docs(0, kDocs));
  ASSERT_TRUE(graph_->CreateBranch("b", "main").ok());
  Result<LoadResult> on_branch =
      engine::Load(*graph_, "b", Docs(kDocs, kDocs + 5, " zebra"), LoadMode::kAppend, {});
  ASSERT_TRUE(on_branch.ok()) << on_branch.status().ToString();
  LoadLines(Docs(kDocs + 10, kDocs + 15, " crossing"));  // Both sides changed the table.
  ASSERT_EQ(HeadDepth(), 1);
  Result<MergeResult> merged = Merge(*graph_, MergeRequest{"b", "main", std::nullopt});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->outcome, MergeOutcome::kMerged);
  EXPECT_EQ(HeadDepth(), 2);  // The merge's version: a delta over the target's.
  ExpectChainEqualsRebuild();
  EXPECT_EQ(Answers(*Cold()), RebuiltAnswers());
}

// A merge's patch of a table both sides changed is two steps when the source deleted rows: its
// deletes, then its upserts staged on them. Only the second is published, so its delta steps
// over the delete step (which stores nothing) to the target's version, with both steps' removals.
TEST_F(FullTextDeltaTest, ATwoStepMergePatchStoresADeltaOverTheTargetsIndex) {
  LoadLines(Docs(0, kDocs));
  ASSERT_TRUE(graph_->CreateBranch("b", "main").ok());
  MutationOptions on_b;
  on_b.branch = "b";
  for (const char* slug : {"d10003", "d10020", "d10031"}) {
    Result<MutationResult> r = engine::Mutate(*graph_, kQueries, "remove", Json{{"s", slug}}, on_b);
    ASSERT_TRUE(r.ok() && r->commit) << r.status().ToString();
  }
  // Two updates (document 57 has no body on either side: unchanged) and four new rows.
  Result<LoadResult> on_branch =
      engine::Load(*graph_, "b", Docs(55, 58, " zebra") + Docs(kDocs, kDocs + 4, " crossing zebra"),
                   LoadMode::kMerge, {});
  ASSERT_TRUE(on_branch.ok()) << on_branch.status().ToString();
  LoadLines(Docs(kDocs + 10, kDocs + 15, " crossing"));  // Both sides changed the table.
  ASSERT_EQ(HeadDepth(), 1);
  const uint64_t target = HeadStagedVersion();
  Result<MergeResult> merged = Merge(*graph_, MergeRequest{"b", "main", std::nullopt});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->outcome, MergeOutcome::kMerged);
  std::shared_ptr<const table::TableVersion> v = Head(*Cold());
  Result<std::shared_ptr<const table::TableVersion>> step = v->Base();
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_EQ((*step)->manifest().operation, table::Operation::kDelete);
  EXPECT_EQ((*step)->manifest().deleted_ids_count, 3u);
  EXPECT_EQ((*step)->manifest().base_staged_version, target);
  EXPECT_EQ(v->manifest().updated_ids_count, 2u);
  EXPECT_EQ(v->manifest().inserted_ids_count, 4u);
  EXPECT_EQ(Depth(**step), -1);  // The delete step stores nothing...
  EXPECT_EQ(Depth(*v), 2);       // ...and the merge's version is a delta over the target's.
  EXPECT_EQ(HeadDeltaBase(), target);
  ExpectChainEqualsRebuild();
  const std::string answers = Answers(*Cold());
  EXPECT_NE(answers.find("d10400"), std::string::npos) << answers;
  EXPECT_EQ(answers.find("d10003\""), std::string::npos) << answers;
  EXPECT_EQ(answers, RebuiltAnswers());
}

// Stepping over a published version without an index (here: its object was dropped) is exact
// whatever the step did: ids it inserted and the next write updates or deletes are not removed
// from the ancestor's index, which never held them; ids it deleted and the next write writes
// again are removed once.
TEST_F(FullTextDeltaTest, AStepWithoutAnIndexIsSteppedOverExactly) {
  LoadLines(Docs(0, kDocs));
  // A step that inserts three ids and updates one; then a write that updates two of them and
  // one the step did not touch.
  uint64_t ancestor = HeadStagedVersion();
  LoadLines(Docs(kDocs, kDocs + 3, " zebra") + Docs(10, 11, " crossing"), LoadMode::kMerge);
  DropHeadIndex();
  LoadLines(Docs(kDocs, kDocs + 1, " again") + Docs(10, 12, " zebra crossing"), LoadMode::kMerge);
  EXPECT_EQ(HeadDepth(), 1);
  EXPECT_EQ(HeadDeltaBase(), ancestor);
  ExpectChainEqualsRebuild();
  // A step that inserts ids; then a write that deletes one of them.
  ancestor = HeadStagedVersion();
  LoadLines(Docs(kDocs + 3, kDocs + 6, " crossing"));
  DropHeadIndex();
  Mutate("remove", Json{{"s", "d10404"}});
  EXPECT_EQ(HeadDepth(), 2);
  EXPECT_EQ(HeadDeltaBase(), ancestor);
  ExpectChainEqualsRebuild();
  // A step that deletes an id; then a write that writes it again and updates another.
  ancestor = HeadStagedVersion();
  Mutate("remove", Json{{"s", "d10004"}});
  DropHeadIndex();
  LoadLines(Docs(4, 6, " zebra"), LoadMode::kMerge);
  EXPECT_EQ(HeadDepth(), 3);
  EXPECT_EQ(HeadDeltaBase(), ancestor);
  ExpectChainEqualsRebuild();
  EXPECT_EQ(Answers(*Cold()), RebuiltAnswers());
}

}  // namespace
}  // namespace omnigraph::engine

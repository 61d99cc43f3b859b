// The change feed (docs/design/change-feed.md): pages in first-parent order from resumable
// cursors, typed rejections and gaps, baselines, and the exact object reads a poll costs.
#include "engine/ops/change_feed.h"

#include <gtest/gtest.h>

#include <set>

#include "base/clock.h"
#include "commit/stream.h"
#include "engine/ops/cleanup.h"
#include "engine/ops/commit_changes.h"
#include "engine/ops/load.h"
#include "engine/ops/schema_apply.h"
#include "engine/write/mutate.h"
#include "query/exec/column_codec.h"
#include "schema/keys.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "storage/naming_store.h"

namespace omnigraph::engine {
namespace {

using schema::Value;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person { }
)";

constexpr std::string_view kQueries = R"(
query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query age($name: String, $age: I32) { update Person set { age: $age } where name = $name }
query remove($name: String) { delete Person where name = $name }
query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
)";

// The data GETs an unfiltered page of the test below makes beyond a page of one node: the one
// fragment of the Knows table, which a node page never opens.
constexpr size_t kEveryMinusOne = 1;

constexpr int64_t kHourMicros = int64_t{3600} * 1000 * 1000;

class ChangeFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The store's clock is the runtime's, so that cleanup sees objects' true ages.
    naming_ = std::make_shared<storage::NamingStore>(
        std::make_shared<storage::MemoryStore>("feed", clock_.get()));
    counting_ = std::make_shared<storage::CountingStore>(naming_);
    storage::Runtime runtime = storage::Runtime::ForTest(counting_);
    runtime.clock = clock_;
    Result<std::unique_ptr<Graph>> g = Graph::Init(runtime, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    feed_ = std::make_unique<ChangeFeed>(*graph_);
  }

  std::string Mutate(std::string_view name, std::map<std::string, Value> params,
                     const std::string& branch = "main") {
    MutationOptions options;
    options.branch = branch;
    Result<MutationResult> r = engine::Mutate(*graph_, kQueries, name, params, options);
    OMNIGRAPH_CHECK_MSG(r.ok() && r->commit, std::string(name) + ": " + r.status().ToString());
    return *r->commit;
  }
  std::string Add(const std::string& name, int age, const std::string& branch = "main") {
    return Mutate("add", {{"name", Value::String(name)}, {"age", Value::Int(age)}}, branch);
  }
  Json Poll(FeedRequest request) {
    Result<Json> page = feed_->Poll(request);
    OMNIGRAPH_CHECK_MSG(page.ok(), page.status().ToString());
    return *page;
  }
  Json PollCursor(const std::string& cursor, size_t limit = kFeedPageCommitsDefault) {
    FeedRequest request;
    request.cursor = cursor;
    request.limit = limit;
    return Poll(request);
  }
  Json PollStart(const std::string& start, const std::string& branch = "main") {
    FeedRequest request;
    request.branch = branch;
    request.start = start;
    return Poll(request);
  }
  // Where the next poll continues: the page token, or on the terminal page the cursor.
  static std::string Next(const Json& page) {
    EXPECT_NE(page.contains("cursor"), page.contains("next_page_token")) << page.dump();
    EXPECT_EQ(page.contains("cursor"), page["caught_up"].get<bool>()) << page.dump();
    return page.contains("cursor") ? page["cursor"] : page["next_page_token"];
  }
  static std::vector<std::string> Ids(const Json& page) {
    std::vector<std::string> ids;
    for (const Json& c : page["blocks"]) ids.push_back(c["cause"]["graph_commit_id"]);
    return ids;
  }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::shared_ptr<storage::NamingStore> naming_;
  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
  std::unique_ptr<ChangeFeed> feed_;
};

TEST_F(ChangeFeedTest, FromTheBeginningEveryCommitComesInOrderWithItsCommitChanges) {
  std::vector<std::string> commits = {Add("ada", 36), Add("bob", 40)};
  commits.push_back(Mutate("knows", {{"a", Value::String("ada")}, {"b", Value::String("bob")}}));
  commits.push_back(Mutate("age", {{"name", Value::String("ada")}, {"age", Value::Int(37)}}));
  commits.push_back(Mutate("remove", {{"name", Value::String("bob")}}));

  const Json page = PollStart("beginning");
  EXPECT_EQ(Ids(page), commits);
  EXPECT_TRUE(page["caught_up"].get<bool>());
  EXPECT_EQ(page["stream"], "main");
  for (size_t i = 0; i < commits.size(); ++i) {
    Result<Json> one = CommitChanges(*graph_, commits[i]);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    EXPECT_EQ(page["blocks"][i]["changes"], (*one)["changes"]) << i;
    EXPECT_EQ(page["blocks"][i]["cause"], (*one)["cause"]) << i;
    EXPECT_EQ(page["blocks"][i]["seq"], i + 1);
  }
  EXPECT_EQ(page["blocks"][0]["summary"], "mutate add: +1 node");
  EXPECT_EQ(page["blocks"][3]["changes"][0]["op"], "update");
  EXPECT_EQ(page["blocks"][3]["changes"][0]["before"]["properties"]["age"], 36);
  EXPECT_EQ(page["blocks"][3]["changes"][0]["after"]["properties"]["age"], 37);

  // Nothing new: an empty page, caught up, and the same position.
  const Json again = PollCursor(Next(page));
  EXPECT_TRUE(again["blocks"].empty());
  EXPECT_TRUE(again["caught_up"].get<bool>());
  EXPECT_EQ(Next(again), Next(page));
  const std::string next = Add("cy", 1);
  EXPECT_EQ(Ids(PollCursor(Next(again))), std::vector<std::string>{next});
}

// A group commit's block names its members (actor, idempotency key, own counts) in order; the
// record of one write has none. The record is written as group commit writes a batch's.
TEST_F(ChangeFeedTest, AGroupCommitsBlockNamesItsMembers) {
  Add("ada", 36);
  Result<Snapshot> head = graph_->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  const schema::TypeDef* person = head->catalog().FindNode("Person");
  ASSERT_NE(person, nullptr);
  Result<query::RowsBuilder> rows = query::RowsBuilder::Make(*person);
  ASSERT_TRUE(rows.ok());
  for (const char* name : {"bob", "cy"}) {
    const Value key = Value::String(name);
    Result<std::string> id = schema::DeriveNodeId(*person, std::span<const Value>(&key, 1));
    ASSERT_TRUE(id.ok());
    std::vector<std::optional<Value>> values(person->properties.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (person->properties[i].name == "name") values[i] = key;
    }
    ASSERT_TRUE(rows->Append(*id, "", "", values).ok());
  }
  WriteRequest write;
  write.changes["node:Person"] = TableChange{TableChange::Op::kAppend, *rows->Finish(), {}};
  const Json counts{{"affected_nodes", 1}, {"affected_edges", 0}};
  write.members = {
      commit::BatchMember{std::string("ana"), nullptr, counts},
      commit::BatchMember{std::string("bo"), IdempotencyMember(Idempotency{"bo-1", "sha", counts}),
                          counts}};
  Result<WriteResult> written = Write(*graph_, write);
  ASSERT_TRUE(written.ok()) << written.status().ToString();

  const Json page = PollStart("beginning");
  ASSERT_EQ(page["blocks"].size(), 2u);
  EXPECT_FALSE(page["blocks"][0].contains("members")) << page["blocks"][0].dump();
  const Json& members = page["blocks"][1]["members"];
  ASSERT_EQ(members.size(), 2u) << page["blocks"][1].dump();
  EXPECT_EQ(members[0], (Json{{"actor_id", "ana"}, {"counts", counts}}));
  EXPECT_EQ(members[1],
            (Json{{"actor_id", "bo"}, {"idempotency_key", "bo-1"}, {"counts", counts}}));
  EXPECT_EQ(page["blocks"][1]["changes"].size(), 2u);
}

TEST_F(ChangeFeedTest, PagesResumeWhereThePreviousOneEnded) {
  std::vector<std::string> commits;
  for (int i = 0; i < 5; ++i) commits.push_back(Add("p" + std::to_string(i), i));
  FeedRequest request;
  request.start = "beginning";
  request.limit = 2;
  std::vector<std::string> seen;
  Json page = Poll(request);
  int pages = 1;
  while (true) {
    for (const std::string& id : Ids(page)) seen.push_back(id);
    if (page["caught_up"].get<bool>()) break;
    EXPECT_EQ(page["blocks"].size(), 2u);
    page = PollCursor(Next(page), 2);
    ++pages;
  }
  EXPECT_EQ(seen, commits);
  EXPECT_EQ(pages, 3);  // 2 + 2 + 1 (the last one finds the end).
}

TEST_F(ChangeFeedTest, StartsNowAndAfterACommit) {
  const std::string a = Add("a", 1);
  const std::string b = Add("b", 2);
  const Json now = PollStart("now");
  EXPECT_TRUE(now["blocks"].empty());
  EXPECT_TRUE(now["caught_up"].get<bool>());
  const std::string c = Add("c", 3);
  EXPECT_EQ(Ids(PollCursor(Next(now))), std::vector<std::string>{c});
  EXPECT_EQ(Ids(PollStart("after:" + a)), (std::vector<std::string>{b, c}));

  FeedRequest bad;
  bad.start = "yesterday";
  EXPECT_EQ(feed_->Poll(bad).status().code(), Code::kInvalidArgument);
  bad.start = "after:main.99.AAAAAAAAAA";
  EXPECT_EQ(feed_->Poll(bad).status().code(), Code::kCommitNotFound);
  bad.start = "now";
  bad.limit = 0;
  EXPECT_EQ(feed_->Poll(bad).status().code(), Code::kInvalidArgument);
  bad.limit = kFeedPageCommitsMax + 1;
  EXPECT_EQ(feed_->Poll(bad).status().code(), Code::kInvalidArgument);
  bad.limit = 1;
  bad.branch = "nope";
  EXPECT_EQ(feed_->Poll(bad).status().code(), Code::kBranchNotFound);
}

TEST_F(ChangeFeedTest, ABranchFeedFromTheBeginningReplaysTheHistoryItInherited) {
  const std::string a = Add("a", 1);
  const std::string fork = Add("b", 2);
  ASSERT_TRUE(graph_->CreateBranch("dev", "main").ok());
  const std::string d1 = Add("d1", 1, "dev");
  const std::string m3 = Add("m3", 3);  // On main after the fork: not in dev's feed.
  ASSERT_TRUE(graph_->CreateBranch("feature", "dev").ok());
  const std::string d2 = Add("d2", 2, "dev");  // On dev after feature forked.
  const std::string f1 = Add("f1", 1, "feature");
  const Json page = PollStart("beginning", "dev");
  EXPECT_EQ(Ids(page), (std::vector<std::string>{a, fork, d1, d2}));
  EXPECT_NE(page["stream"], "main");
  EXPECT_EQ(page["blocks"][2]["cause"]["parent_commit_id"], fork);
  EXPECT_EQ(page["blocks"][0]["changes"][0]["id"], "a");
  // A branch of a branch: main's history up to dev's fork, dev's up to feature's, then its own.
  EXPECT_EQ(Ids(PollStart("beginning", "feature")), (std::vector<std::string>{a, fork, d1, f1}));
  // A page at a time, each cursor continuing across the forks.
  FeedRequest one;
  one.branch = "feature";
  one.start = "beginning";
  one.limit = 1;
  std::vector<std::string> walked;
  for (Json p = Poll(one); !p["blocks"].empty(); p = PollCursor(Next(p), 1)) {
    walked.push_back(Ids(p)[0]);
  }
  EXPECT_EQ(walked, (std::vector<std::string>{a, fork, d1, f1}));
  // after:ID takes a commit of the inherited history, or of the branch's own.
  EXPECT_EQ(Ids(PollStart("after:" + a, "dev")), (std::vector<std::string>{fork, d1, d2}));
  EXPECT_EQ(Ids(PollStart("after:" + fork, "dev")), (std::vector<std::string>{d1, d2}));
  EXPECT_EQ(Ids(PollStart("after:" + d1, "feature")), (std::vector<std::string>{f1}));
  // A commit of main after the fork, or of dev after feature forked, is not on the chain.
  for (const auto& [branch, id] : {std::pair{"dev", m3}, std::pair{"feature", d2}}) {
    FeedRequest off;
    off.branch = branch;
    off.start = "after:" + id;
    EXPECT_EQ(feed_->Poll(off).status().code(), Code::kInvalidArgument) << id;
  }
  // On main, beginning is after genesis, as before.
  EXPECT_EQ(Ids(PollStart("beginning")), (std::vector<std::string>{a, fork, m3}));
}

TEST_F(ChangeFeedTest, FiltersKeepTheirChangesInEveryBlockAndBindTheCursor) {
  const std::string c1 = Add("ada", 36);
  const std::string c2 = Add("bob", 40);
  const std::string c3 =
      Mutate("knows", {{"a", Value::String("ada")}, {"b", Value::String("bob")}});
  const std::string c4 = Mutate("age", {{"name", Value::String("ada")}, {"age", Value::Int(37)}});
  auto kept = [](const Json& page) {
    std::vector<std::string> out;
    for (const Json& b : page["blocks"]) {
      for (const Json& c : b["changes"])
        out.push_back(c["op"].get<std::string>() + " " + c["id"].get<std::string>());
    }
    return out;
  };
  FeedRequest request;
  request.start = "beginning";
  request.filter.kinds = {"node"};
  request.filter.ops = {"insert"};
  Json page = Poll(request);
  // Every commit still has its block (an empty one advances the feed), with only what matches.
  EXPECT_EQ(Ids(page), (std::vector<std::string>{c1, c2, c3, c4}));
  EXPECT_EQ(kept(page), (std::vector<std::string>{"insert ada", "insert bob"}));
  request.filter = ChangeFilter{{}, {"Knows"}, {}};
  EXPECT_EQ(kept(Poll(request)).size(), 1u);
  request.filter = ChangeFilter{{}, {}, {"update", "insert"}};
  EXPECT_EQ(kept(Poll(request)).size(), 4u);
  // A type no schema has selects nothing (decision 155).
  request.filter = ChangeFilter{{}, {"Nobody"}, {}};
  EXPECT_TRUE(kept(Poll(request)).empty());

  // The cursor is bound to its filter: the same filter continues, another (or none) is refused.
  request.filter = ChangeFilter{{"node"}, {}, {"update"}};
  const std::string cursor = Next(Poll(request));
  const std::string c5 = Mutate("age", {{"name", Value::String("bob")}, {"age", Value::Int(41)}});
  FeedRequest same;
  same.cursor = cursor;
  same.filter = ChangeFilter{{"node"}, {}, {"update"}};
  EXPECT_EQ(kept(Poll(same)), (std::vector<std::string>{"update bob"}));
  for (const ChangeFilter& other : {ChangeFilter{}, ChangeFilter{{"node"}, {}, {}}}) {
    FeedRequest moved;
    moved.cursor = cursor;
    moved.filter = other;
    Result<Json> refused = feed_->Poll(moved);
    EXPECT_EQ(refused.status().code(), Code::kChangeCursorRejected);
    EXPECT_NE(refused.status().message().find("change cursor rejected: it was issued for"),
              std::string::npos)
        << refused.status().ToString();
  }
  // And an unfiltered cursor refuses a filtered poll.
  FeedRequest unfiltered;
  unfiltered.cursor = Next(PollStart("now"));
  unfiltered.filter.kinds = {"edge"};
  EXPECT_EQ(feed_->Poll(unfiltered).status().code(), Code::kChangeCursorRejected);

  for (const ChangeFilter& bad : {ChangeFilter{{"vertex"}, {}, {}},
                                  ChangeFilter{{}, {}, {"upsert"}}, ChangeFilter{{}, {""}, {}}}) {
    FeedRequest r;
    r.filter = bad;
    EXPECT_EQ(feed_->Poll(r).status().code(), Code::kInvalidArgument);
    EXPECT_EQ(feed_->Baseline("main", bad, [](std::string_view) { return Status::Ok(); }).code(),
              Code::kInvalidArgument);
  }
  EXPECT_NE(c5, c4);
}

TEST_F(ChangeFeedTest, AFilteredBaselineExportsTheSelectedTypesAndBindsItsCursor) {
  Add("ada", 36);
  Add("bob", 40);
  Mutate("knows", {{"a", Value::String("ada")}, {"b", Value::String("bob")}});
  auto baseline = [this](const ChangeFilter& filter) {
    std::string out;
    Status s = feed_->Baseline("main", filter, [&](std::string_view chunk) {
      out += chunk;
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::vector<Json> lines;
    for (size_t start = 0, nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
      lines.push_back(*ParseJson(out.substr(start, nl - start), "line"));
    }
    return lines;
  };
  EXPECT_EQ(baseline({}).size(), 4u);                              // 2 nodes, 1 edge, the handshake
  EXPECT_EQ(baseline(ChangeFilter{{"edge"}, {}, {}}).size(), 2u);  // the edge, the handshake
  EXPECT_EQ(baseline(ChangeFilter{{}, {"Person"}, {}}).size(), 3u);
  // Kind and type both select: a node kind with an edge type selects nothing.
  const std::vector<Json> none = baseline(ChangeFilter{{"node"}, {"Knows"}, {}});
  ASSERT_EQ(none.size(), 1u);
  // `op` does not narrow the export, but the resume cursor is bound to it.
  const std::vector<Json> ops = baseline(ChangeFilter{{}, {}, {"delete"}});
  ASSERT_EQ(ops.size(), 4u);
  const std::string resume = ops.back()["baseline"]["resume_cursor"];
  Mutate("remove", {{"name", Value::String("bob")}});
  FeedRequest follow;
  follow.cursor = resume;
  follow.filter.ops = {"delete"};
  const Json page = Poll(follow);
  ASSERT_EQ(page["blocks"].size(), 1u);
  ASSERT_FALSE(page["blocks"][0]["changes"].empty());
  for (const Json& c : page["blocks"][0]["changes"]) EXPECT_EQ(c["op"], "delete");
  EXPECT_EQ(page["blocks"][0]["changes"][0]["id"], "bob");
  follow.filter.ops.clear();
  EXPECT_EQ(feed_->Poll(follow).status().code(), Code::kChangeCursorRejected);
  EXPECT_EQ(none.back()["baseline"]["snapshot_commit_id"],
            ops.back()["baseline"]["snapshot_commit_id"]);
}

TEST_F(ChangeFeedTest, ACursorOfAnotherGraphLifeOrDamagedIsRejected) {
  Add("a", 1);
  const std::string cursor = Next(PollStart("now"));
  // Damaged: any changed character fails the check.
  for (size_t i : {size_t{3}, cursor.size() / 2, cursor.size() - 1}) {
    std::string damaged = cursor;
    damaged[i] = damaged[i] == 'A' ? 'B' : 'A';
    FeedRequest request;
    request.cursor = damaged;
    EXPECT_EQ(feed_->Poll(request).status().code(), Code::kChangeCursorRejected) << i;
  }
  FeedRequest garbage;
  garbage.cursor = "main:3";
  EXPECT_EQ(feed_->Poll(garbage).status().code(), Code::kChangeCursorRejected);

  // Another graph's cursor.
  // (Another seed: the same seed and clock would mint the same graph id.)
  auto other =
      Graph::Init(storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 7), kSchema);
  ASSERT_TRUE(other.ok());
  ChangeFeed other_feed(**other);
  FeedRequest foreign;
  foreign.cursor = cursor;
  Result<Json> refused = other_feed.Poll(foreign);
  EXPECT_EQ(refused.status().code(), Code::kChangeCursorRejected);
  EXPECT_NE(refused.status().message().find("belongs to graph"), std::string::npos);

  // A deleted branch life: its cursor is refused, also once the name lives again.
  ASSERT_TRUE(graph_->CreateBranch("dev", "main").ok());
  Add("d", 1, "dev");
  const std::string dev_cursor = Next(PollStart("now", "dev"));
  ASSERT_TRUE(graph_->DeleteBranch("dev").ok());
  ASSERT_TRUE(graph_->CreateBranch("dev", "main").ok());
  Add("d2", 2, "dev");
  FeedRequest old_life;
  old_life.cursor = dev_cursor;
  Result<Json> gone = feed_->Poll(old_life);
  EXPECT_EQ(gone.status().code(), Code::kChangeCursorRejected) << gone.status().ToString();
  EXPECT_NE(gone.status().message().find("was deleted"), std::string::npos);
}

TEST_F(ChangeFeedTest, CursorsRoundTripAndCarryTheirPosition) {
  const FeedCursor c{"01M8R7C14Q3SSY1VMZ818AYB9C", "main", 42, "main.42.J2C6S7SD8M"};
  const std::string text = EncodeFeedCursor(c);
  EXPECT_TRUE(text.starts_with("c1."));
  Result<FeedCursor> back = DecodeFeedCursor(text, c.graph_id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, c);
  // A filtered cursor in inherited history carries its scope and the ancestor it is on.
  const FeedCursor scoped{c.graph_id,
                          "01M8R7C14Q3SSY1VMZ818AYB9D",
                          3,
                          "main.3.J2C6S7SD8M",
                          FilterScope(ChangeFilter{{"node"}, {}, {}}),
                          "main"};
  Result<FeedCursor> scoped_back = DecodeFeedCursor(EncodeFeedCursor(scoped), c.graph_id);
  ASSERT_TRUE(scoped_back.ok()) << scoped_back.status().ToString();
  EXPECT_EQ(*scoped_back, scoped);
  EXPECT_EQ(FilterScope(ChangeFilter{}), "");
  EXPECT_EQ(FilterScope(ChangeFilter{{"node"}, {"A", "B"}, {}}),
            FilterScope(ChangeFilter{{"node"}, {"B", "A"}, {}}));
  EXPECT_NE(FilterScope(ChangeFilter{{"node"}, {}, {}}),
            FilterScope(ChangeFilter{{"edge"}, {}, {}}));
  EXPECT_EQ(DecodeFeedCursor(text, "01M8R7C14Q3SSY1VMZ818AYB9D").status().code(),
            Code::kChangeCursorRejected);
  EXPECT_EQ(DecodeFeedCursor(text.substr(0, text.size() - 1), c.graph_id).status().code(),
            Code::kChangeCursorRejected);
}

TEST_F(ChangeFeedTest, ASchemaChangeIsABoundaryBlock) {
  Add("a", 1);
  const std::string cursor = Next(PollStart("now"));
  Result<SchemaApplyResult> applied =
      ApplySchema(*graph_, std::string(kSchema) + "node Place { name: String @key }\n");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  const std::string after = Add("b", 2);
  const Json page = PollCursor(cursor);
  ASSERT_EQ(page["blocks"].size(), 2u);
  EXPECT_TRUE(page["blocks"][0]["schema_boundary"].get<bool>());
  EXPECT_TRUE(page["blocks"][0]["changes"].empty());
  EXPECT_EQ(page["blocks"][1]["cause"]["graph_commit_id"], after);
  EXPECT_EQ(page["blocks"][1]["changes"].size(), 1u);
}

TEST_F(ChangeFeedTest, ABaselineIsTheHeadExportAndACursorToFollowFrom) {
  Add("ada", 36);
  Add("bob", 40);
  std::string out;
  ASSERT_TRUE(feed_
                  ->Baseline("main", {},
                             [&](std::string_view chunk) {
                               out += chunk;
                               return Status::Ok();
                             })
                  .ok());
  std::vector<std::string> lines;
  for (size_t start = 0, nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(out.substr(start, nl - start));
  }
  ASSERT_EQ(lines.size(), 3u);  // two entities, then the baseline line
  Result<Json> last = ParseJson(lines.back(), "baseline");
  ASSERT_TRUE(last.ok());
  const Json& baseline = (*last)["baseline"];
  EXPECT_EQ(baseline["snapshot_commit_id"], graph_->SnapshotOfBranch("main")->commit_id());
  const std::string next = Add("cy", 1);
  EXPECT_EQ(Ids(PollCursor(baseline["resume_cursor"])), std::vector<std::string>{next});
}

TEST_F(ChangeFeedTest, HistoryReclaimedByCleanupIsAGapNamingTheHorizon) {
  const std::string behind = Next(PollStart("beginning"));
  for (int i = 0; i < 8; ++i) Add("p" + std::to_string(i), i);
  clock_->Advance(kHourMicros * 2);  // Everything is older than the grace period.
  CleanupOptions options;
  options.keep = 1;
  ASSERT_TRUE(Cleanup(*graph_, options).ok());
  // A handle that has not cached the reclaimed versions (this one staged them).
  Result<std::unique_ptr<Graph>> fresh = Graph::Open(graph_->runtime());
  ASSERT_TRUE(fresh.ok());
  ChangeFeed feed(**fresh);
  FeedRequest request;
  request.cursor = behind;
  Result<Json> gap = feed.Poll(request);
  ASSERT_EQ(gap.status().code(), Code::kChangeFeedGap) << gap.status().ToString();
  EXPECT_NE(gap.status().message().find("below seq"), std::string::npos);
  EXPECT_NE(gap.status().message().find("changes baseline"), std::string::npos);
  EXPECT_EQ(gap.status().object(), commit::HorizonName("main"));
}

// A spilled change set's delta object is kept while its record is retained and removed with it.
TEST_F(ChangeFeedTest, ADeltaObjectGoesWithItsRecordsRetention) {
  std::string large;
  for (int i = 0; i < 3000; ++i) {
    large += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) + "\"}}\n";
  }
  Result<LoadResult> loaded = LoadJsonl(*graph_, "main", large, LoadMode::kAppend);
  ASSERT_TRUE(loaded.ok() && loaded->commit) << loaded.status().ToString();
  Result<commit::Record> record = commit::LookupCommit(*counting_, *loaded->commit);
  ASSERT_TRUE(record.ok() && record->change_set && record->change_set->delta);
  const std::string delta = record->change_set->delta->name;
  auto deltas = [&] { return storage::ListAll(*counting_, "_graph/main/changes/")->size(); };
  Add("a", 1);
  CleanupOptions options;
  options.keep = 2;                  // Retains the load.
  clock_->Advance(kHourMicros * 2);  // Everything is older than the grace period.
  Result<GraphCleanupReport> kept = Cleanup(*graph_, options);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_TRUE(kept->deltas_removed.empty());
  EXPECT_EQ(deltas(), 1u);
  Add("b", 2);
  clock_->Advance(kHourMicros * 2);
  options.keep = 1;
  options.dry_run = true;
  Result<GraphCleanupReport> preview = Cleanup(*graph_, options);
  ASSERT_TRUE(preview.ok());

  EXPECT_EQ(preview->deltas_removed, std::vector<std::string>{delta});
  EXPECT_EQ(deltas(), 1u);  // A dry run removes nothing.
  options.dry_run = false;
  Result<GraphCleanupReport> removed = Cleanup(*graph_, options);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(removed->deltas_removed, std::vector<std::string>{delta});
  EXPECT_EQ(deltas(), 0u);
}

// What a consumer pays: a caught-up poll is one object read at any depth.
TEST_F(ChangeFeedTest, ACaughtUpPollIsOneObjectReadAtDepthsTenAndTenThousand) {
  for (int i = 0; i < 10; ++i) Add("p" + std::to_string(i), i);
  std::string cursor = Next(PollStart("now"));
  storage::OpCounts before = counting_->Snapshot();
  Json page = PollCursor(cursor);
  storage::OpCounts cost = counting_->Snapshot() - before;
  EXPECT_TRUE(page["caught_up"].get<bool>());
  EXPECT_EQ(cost.total(), 1u) << cost.ToString();
  EXPECT_EQ(cost.gets, 1u);

  // Depth 10,000: records without tables, published straight on main's stream.
  Result<std::unique_ptr<commit::Stream>> main =
      commit::Stream::Open(graph_->runtime(), "main", commit::StreamOptions{50, true});
  ASSERT_TRUE(main.ok());
  for (int i = 0; i < 9990; ++i) {
    commit::PublishRequest empty;
    empty.stage = [](const commit::GraphState&) -> Result<commit::RecordContent> {
      return commit::RecordContent{};
    };
    ASSERT_TRUE((*main)->Publish(empty).ok());
  }
  (*main)->WaitForBackground();
  cursor = Next(PollStart("now"));
  ASSERT_EQ(DecodeFeedCursor(cursor, graph_->stamp().graph_id)->seq, 10000u);
  before = counting_->Snapshot();
  page = PollCursor(cursor);
  cost = counting_->Snapshot() - before;
  EXPECT_TRUE(page["caught_up"].get<bool>());
  EXPECT_EQ(cost.total(), 1u) << cost.ToString();
}

// A page over k commits of a consumer that keeps polling: k record reads, one read that finds
// the end, and the changed entities' table reads (here, one inserted node per commit, in a fresh
// version of its table, on a handle that has not read those versions); no fold, no other table.
TEST_F(ChangeFeedTest, APageCostsItsRecordsAndTheChangedEntitiesOnly) {
  for (int i = 0; i < 20; ++i) Add("p" + std::to_string(i), i);
  // The consumer's own handle: nothing of the writer's cached table versions.
  Result<std::unique_ptr<Graph>> reader = Graph::Open(graph_->runtime());
  ASSERT_TRUE(reader.ok());
  feed_ = std::make_unique<ChangeFeed>(**reader);
  Json page = PollStart("beginning");  // Folds once; the feed keeps the state at its end.
  ASSERT_EQ(page["blocks"].size(), 20u);
  Add("new0", 1);
  Add("new1", 2);
  Add("new2", 3);
  storage::OpCounts before = counting_->Snapshot();
  naming_->TakeGets();
  page = PollCursor(Next(page));
  storage::OpCounts cost = counting_->Snapshot() - before;
  const std::vector<std::string> read = naming_->TakeGets();
  ASSERT_EQ(page["blocks"].size(), 3u);
  EXPECT_TRUE(page["caught_up"].get<bool>());
  std::string names;
  size_t records = 0, manifests = 0, fragments = 0;
  for (const std::string& n : read) {
    names += n + "\n";
    records += n.ends_with(".commit");
    manifests += n.find("/versions/") != std::string::npos;
    fragments += n.find("/data/") != std::string::npos;
  }
  // Per commit: its record, the manifest of its node:Person version and the one fragment that
  // holds the inserted entity; then the record that is not there yet. Nothing else: no
  // checkpoint, no metadata, no other table, no unchanged fragment.
  EXPECT_EQ(cost.writes(), 0u);
  EXPECT_EQ(cost.lists, 0u);
  EXPECT_EQ(cost.heads, 0u);
  EXPECT_EQ(cost.gets, 3u * 3u + 1u) << names;
  EXPECT_EQ(records, 4u) << names;
  EXPECT_EQ(manifests, 3u) << names;
  EXPECT_EQ(fragments, 3u) << names;
}

// A filtered page of `commit changes` hydrates only the changes it returns: a page that selects
// nothing reads no table data at all, and a page of nodes never opens the edge table. (On a
// fresh handle a hydrated version's id index is built from its fragments, so within the Person
// table every fragment is read once whichever of its ids the page returns.) p3, p7 and p12 were
// each inserted by their own commit, then updated together by one load that also inserted one
// Knows edge.
TEST_F(ChangeFeedTest, AFilteredPageOfCommitChangesReadsOnlyTheRowsOfItsEntities) {
  for (int i = 0; i < 20; ++i) Add("p" + std::to_string(i), i);
  Result<LoadResult> loaded =
      LoadJsonl(*graph_, "main",
                "{\"type\":\"Person\",\"data\":{\"name\":\"p3\",\"age\":30}}\n"
                "{\"type\":\"Person\",\"data\":{\"name\":\"p7\",\"age\":70}}\n"
                "{\"type\":\"Person\",\"data\":{\"name\":\"p12\",\"age\":120}}\n"
                "{\"edge\":\"Knows\",\"from\":\"p3\",\"to\":\"p7\"}\n",
                LoadMode::kMerge);
  ASSERT_TRUE(loaded.ok() && loaded->commit) << loaded.status().ToString();
  // The GETs of data fragments a fresh handle makes to answer `request`, and the answer.
  auto data_gets = [&](const CommitChangesRequest& request, Json& page) {
    Result<std::unique_ptr<Graph>> reader = Graph::Open(graph_->runtime());
    OMNIGRAPH_CHECK(reader.ok());
    naming_->TakeGets();
    Result<Json> got = CommitChanges(**reader, *loaded->commit, request);
    OMNIGRAPH_CHECK_MSG(got.ok(), got.status().ToString());
    page = *got;
    size_t n = 0;
    for (const std::string& name : naming_->TakeGets())
      n += name.find("/data/") != std::string::npos;
    return n;
  };
  Json all, none, first, second;
  const size_t every = data_gets({}, all);
  ASSERT_EQ(all["changes"].size(), 4u) << all.dump();
  // A page that selects nothing hydrates nothing: no data read at all.
  EXPECT_EQ(data_gets({.filter = {.ops = {"delete"}}}, none), 0u);
  EXPECT_EQ(none["changes"].size(), 0u);
  const size_t one =
      data_gets({.limit = 1, .filter = {.kinds = {"node"}, .ops = {"update"}}}, first);
  ASSERT_EQ(first["changes"].size(), 1u);
  EXPECT_EQ(first["changes"][0]["id"], "p12");
  const size_t next = data_gets({.limit = 1,
                                 .page_token = first["next_page_token"].get<std::string>(),
                                 .filter = {.kinds = {"node"}}},
                                second);
  ASSERT_EQ(second["changes"].size(), 1u);
  EXPECT_EQ(second["changes"][0]["id"], "p3");
  // Each one-node page costs the same; the unfiltered page reads the Knows fragment too.
  EXPECT_EQ(one, next);
  EXPECT_LT(one, every);
  EXPECT_EQ(every - one, kEveryMinusOne) << "every " << every << " one " << one;
}

}  // namespace
}  // namespace omnigraph::engine

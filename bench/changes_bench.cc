// omnigraph-bench changes: what following a branch's changes costs through the change feed,
// beside the same consumer computing each commit's diff from table state (docs/design/
// change-feed.md "How a poll reads"; the exact diff is docs/design/engine.md "History and
// per-commit diffs").
//
// Builds one graph on the memory store: `--commits` commits (default 1,000) on main, each a
// merge-mode load of `--per-commit` rows (default 1,000, so 1M entity changes in all): half new
// people, half updates of people the previous commit inserted (the first commit inserts all).
// Then two consumers, each on a fresh handle of the same graph (nothing of the writer's caches):
//   - feed: polls from the beginning (`--page` commits a page, default 100) until caught up, the
//     changes served from the records' change sets, hydrating only the listed ids;
//   - diff: walks the same commits oldest first, keeps the previous commit's snapshot, and for
//     each commit computes its changes from the exact diff of the tables (the path of a record
//     without a change set), with the same images.
// Reported: changes/s of each and their ratio, store operations and bytes read, and that both
// saw the same number of changes per commit. Then the record sizes: for k in `--record-sizes`
// (default 1,100,10000) one commit that inserts k people and k companies (k ids in each table),
// the bytes of its record, whether its ids spilled to a delta object and the delta's bytes,
// beside the bytes of the same record without a change set. Timing is reported, never asserted;
// `--json` prints one JSON object for bench/results.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/json.h"
#include "bench/bench.h"
#include "commit/names.h"
#include "commit/stream.h"
#include "engine/graph/graph.h"
#include "engine/ops/change_feed.h"
#include "engine/ops/commit_changes.h"
#include "engine/ops/load.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"

namespace omnigraph::bench {
namespace {

constexpr std::string_view kSchema =
    "node Person { name: String @key  age: I32 }\nnode Company { name: String @key }\n";

std::string Rows(std::string_view type, int64_t from, int64_t count, int64_t age) {
  std::string out;
  for (int64_t i = 0; i < count; ++i) {
    out += "{\"type\":\"" + std::string(type) + "\",\"data\":{\"name\":\"p" +
           std::to_string(from + i) + "\"";
    if (age >= 0) out += ",\"age\":" + std::to_string(age);
    out += "}}\n";
  }
  return out;
}

struct Consumer {
  double seconds = 0;
  uint64_t changes = 0;
  std::vector<uint64_t> per_commit;
  storage::OpCounts ops;
};

// Commit c (0-based) inserts ids [c*half, (c+1)*half) and updates the previous commit's.
Result<std::vector<std::string>> Build(engine::Graph& g, int64_t commits, int64_t per_commit) {
  std::vector<std::string> ids;
  const int64_t half = per_commit / 2;
  for (int64_t c = 0; c < commits; ++c) {
    std::string rows = c == 0 ? Rows("Person", 0, per_commit, 1)
                              : Rows("Person", (c + 1) * half, half, 1) +
                                    Rows("Person", c * half, per_commit - half, c + 1);
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::LoadResult r,
                               engine::Load(g, "main", rows, engine::LoadMode::kMerge));
    if (!r.commit) return Internal("commit " + std::to_string(c) + " changed nothing");
    ids.push_back(*r.commit);
  }
  return ids;
}

Result<Consumer> FollowFeed(const storage::Runtime& rt, storage::CountingStore& counting,
                            size_t page_commits) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<engine::Graph> g, engine::Graph::Open(rt));
  engine::ChangeFeed feed(*g);
  Consumer out;
  const storage::OpCounts before = counting.Snapshot();
  const int64_t t0 = NowNanos();
  engine::FeedRequest request;
  request.start = "beginning";
  request.limit = page_commits;
  for (;;) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Json page, feed.Poll(request));
    for (const Json& block : page["blocks"]) {
      out.per_commit.push_back(block["changes"].size());
      out.changes += block["changes"].size();
    }
    if (page["caught_up"].get<bool>()) break;
    request.start.clear();
    request.cursor = page["next_page_token"].get<std::string>();
  }
  out.seconds = static_cast<double>(NowNanos() - t0) / 1e9;
  out.ops = counting.Snapshot() - before;
  return out;
}

Result<Consumer> FollowDiffs(const storage::Runtime& rt, storage::CountingStore& counting,
                             const std::string& genesis, const std::vector<std::string>& ids) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<engine::Graph> g, engine::Graph::Open(rt));
  Consumer out;
  const storage::OpCounts before = counting.Snapshot();
  const int64_t t0 = NowNanos();
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot previous, g->SnapshotAtCommit(genesis));
  for (const std::string& id : ids) {
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r, commit::LookupCommit(*rt.store, id));
    r.change_set.reset();  // The consumer computes the diff from the tables.
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot now, g->SnapshotAtCommit(id));
    OMNIGRAPH_ASSIGN_OR_RETURN(Json changes, engine::ChangesOf(*g, r, previous, now));
    out.per_commit.push_back(changes.size());
    out.changes += changes.size();
    previous = std::move(now);
  }
  out.seconds = static_cast<double>(NowNanos() - t0) / 1e9;
  out.ops = counting.Snapshot() - before;
  return out;
}

// The record of one commit changing k ids in each of two tables: its bytes with its change set
// (and the delta's), and without one.
Result<Json> RecordSize(engine::Graph& g, storage::ObjectStore& store, int64_t k, int64_t from) {
  OMNIGRAPH_ASSIGN_OR_RETURN(
      engine::LoadResult r,
      engine::Load(g, "main", Rows("Person", from, k, 1) + Rows("Company", from, k, -1),
                   engine::LoadMode::kAppend));
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record record, commit::LookupCommit(store, *r.commit));
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult got,
                             store.Get(commit::RecordName("main", record.seq), std::nullopt));
  const bool spilled = record.change_set && record.change_set->delta.has_value();
  const uint64_t delta_bytes = spilled ? record.change_set->delta->size_bytes : 0;
  record.change_set.reset();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string bare, commit::EncodeRecord(record));
  return Json{{"changed_ids_per_table", k},      {"tables", 2},
              {"record_bytes", got.data.size()}, {"record_bytes_without_change_set", bare.size()},
              {"spilled_to_delta", spilled},     {"delta_bytes", delta_bytes}};
}

Json ConsumerJson(const Consumer& c) {
  return Json{{"seconds", c.seconds},
              {"changes", c.changes},
              {"changes_per_s", static_cast<double>(c.changes) / c.seconds},
              {"gets", c.ops.gets},
              {"lists", c.ops.lists},
              {"bytes_read", c.ops.bytes_read}};
}

int Fail(const Status& s) {
  std::fprintf(stderr, "omnigraph-bench changes: %s\n", s.ToString().c_str());
  return 1;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"commits", "per-commit", "page", "record-sizes", "json"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench changes: %s\n", flags.error().c_str());
    return 2;
  }
  const int64_t commits = flags.GetInt("commits", 1000);
  const int64_t per_commit = flags.GetInt("per-commit", 1000);
  const size_t page = static_cast<size_t>(flags.GetInt("page", 100));
  const std::vector<int64_t> sizes = flags.GetIntList("record-sizes", {1, 100, 10000});
  auto counting =
      std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
  const storage::Runtime rt = storage::Runtime::ForStore(counting, 2);
  Result<std::unique_ptr<engine::Graph>> g = engine::Graph::Init(rt, kSchema);
  if (!g.ok()) return Fail(g.status());
  Result<engine::Snapshot> genesis = (*g)->SnapshotOfBranch("main");
  if (!genesis.ok()) return Fail(genesis.status());
  const std::string genesis_id = genesis->commit_id();
  int64_t t0 = NowNanos();
  Result<std::vector<std::string>> ids = Build(**g, commits, per_commit);
  if (!ids.ok()) return Fail(ids.status());
  const double build_s = static_cast<double>(NowNanos() - t0) / 1e9;
  Result<Consumer> feed = FollowFeed(rt, *counting, page);
  if (!feed.ok()) return Fail(feed.status());
  Result<Consumer> diff = FollowDiffs(rt, *counting, genesis_id, *ids);
  if (!diff.ok()) return Fail(diff.status());
  if (feed->per_commit != diff->per_commit) {
    return Fail(Internal("the feed and the diffs saw different changes per commit"));
  }
  Json records = Json::array();
  int64_t from = commits * per_commit + per_commit;
  for (int64_t k : sizes) {
    Result<Json> size = RecordSize(**g, *counting, k, from);
    if (!size.ok()) return Fail(size.status());
    records.push_back(*size);
    from += k;
  }
  const double ratio = diff->seconds / feed->seconds;
  if (flags.Has("json")) {
    Json out{{"bench", "changes"},
             {"store", "memory"},
             {"commits", commits},
             {"per_commit", per_commit},
             {"page_commits", page},
             {"build_s", build_s},
             {"feed", ConsumerJson(*feed)},
             {"diff", ConsumerJson(*diff)},
             {"ratio_diff_to_feed_time", ratio},
             {"records", records}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("graph: %lld commits of %lld rows built in %.1f s\n", static_cast<long long>(commits),
              static_cast<long long>(per_commit), build_s);
  for (const auto& [name, c] : {std::pair{"feed", &*feed}, {"diff", &*diff}}) {
    std::printf("%-5s %10llu changes %8.2f s %12.0f changes/s %8llu gets %12llu bytes\n", name,
                static_cast<unsigned long long>(c->changes), c->seconds,
                static_cast<double>(c->changes) / c->seconds,
                static_cast<unsigned long long>(c->ops.gets),
                static_cast<unsigned long long>(c->ops.bytes_read));
  }
  std::printf("diff time / feed time: %.2f\n", ratio);
  for (const Json& r : records) std::printf("record: %s\n", r.dump().c_str());
  return 0;
}

Registrar registrar("changes", "following 1M entity changes by the feed beside computing each diff",
                    &Main);

}  // namespace
}  // namespace omnigraph::bench

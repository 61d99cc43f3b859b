// omnigraph-bench query: read-query latency on a generated social graph, beside SQLite answering
// the same questions over the same rows in the same process (docs/design/query-execution.md).
//
// Graph: --persons Person nodes (name = id "p<i>" @key, age 0..99) and --knows Knows edges with
// uniformly random endpoints (no self-loops, so "distinct nodes at exactly distance 2" has one
// meaning in both systems). SQLite: WAL, `id TEXT PRIMARY KEY`, indexes on knows(src) and
// knows(dst), prepared statements. Shapes, each from --starts random starting points:
//   lookup            point lookup by key
//   hop1              count of distinct 1-hop neighbours
//   hop2              count of distinct nodes at exactly distance 2
//   scan_order_limit  age > threshold, order by age desc (ties by id), limit 10
// Every answer is compared between the two systems; a mismatch fails the run (exit 1).
#include <sqlite3.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "engine/graph/graph.h"
#include "engine/read/query.h"
#include "query/exec/column_codec.h"
#include "query/parse/parser.h"
#include "storage/memory_store.h"

namespace omnigraph::bench {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32 }
edge Knows: Person -> Person
)";

constexpr std::string_view kQueries = R"(
query lookup($n: String) { match { $p: Person { name: $n } } return { $p.name, $p.age } }
query hop1($n: String) { match { $a: Person { name: $n }  $a knows $b } return { count($b) as n } }
query hop2($n: String) { match { $a: Person { name: $n }  $a knows{2,2} $b } return { count($b) as n } }
query scan_order_limit($a: I32) {
  match { $p: Person  $p.age > $a }
  return { $p.name, $p.age }
  order { $p.age desc }
  limit 10
}
)";

struct Shape {
  std::string name;
  std::vector<double> ours_us;
  std::vector<double> sqlite_us;
};

bool Check(int rc, sqlite3* db, const char* what) {
  if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) return true;
  std::fprintf(stderr, "omnigraph-bench query: sqlite %s: %s\n", what, sqlite3_errmsg(db));
  return false;
}

std::string PersonId(uint64_t i) { return "p" + std::to_string(i); }

int QueryMain(const std::vector<std::string>& args) {
  Flags flags(args, {"persons", "knows", "starts", "json", "seed"});
  if (!flags.error().empty()) {
    std::fprintf(stderr,
                 "%s\nusage: omnigraph-bench query [--persons 1000000] [--knows 10000000] "
                 "[--starts 1000] [--seed 42] [--json]\n",
                 flags.error().c_str());
    return 2;
  }
  const uint64_t persons = static_cast<uint64_t>(flags.GetInt("persons", 1000000));
  const uint64_t knows = static_cast<uint64_t>(flags.GetInt("knows", 10000000));
  const int starts = static_cast<int>(flags.GetInt("starts", 1000));
  const bool json = flags.Has("json");
  if (persons < 2 || starts <= 0) {
    std::fprintf(stderr, "omnigraph-bench query: --persons must be >= 2 and --starts > 0\n");
    return 2;
  }
  std::mt19937_64 rng(static_cast<uint64_t>(flags.GetInt("seed", 42)));
  std::vector<int32_t> ages(persons);
  for (int32_t& a : ages) a = static_cast<int32_t>(rng() % 100);
  std::vector<std::pair<uint64_t, uint64_t>> edges;
  edges.reserve(knows);
  while (edges.size() < knows) {
    uint64_t s = rng() % persons, d = rng() % persons;
    if (s != d) edges.emplace_back(s, d);
  }

  // ---- Ours.
  int64_t t0 = NowNanos();
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 2);
  Result<std::unique_ptr<engine::Graph>> graph = engine::Graph::Init(rt, kSchema);
  if (!graph.ok()) {
    std::fprintf(stderr, "init: %s\n", graph.status().ToString().c_str());
    return 1;
  }
  {
    engine::Snapshot s0 = *(*graph)->SnapshotOfBranch("main");
    const schema::TypeDef* person = s0.catalog().FindNode("Person");
    const schema::TypeDef* edge = s0.catalog().FindEdge("Knows");
    query::RowsBuilder pb = *query::RowsBuilder::Make(*person);
    std::vector<std::optional<schema::Value>> v(2);
    for (uint64_t i = 0; i < persons; ++i) {
      v[0] = schema::Value::String(PersonId(i));
      v[1] = schema::Value::Int(ages[i]);
      if (!pb.Append(PersonId(i), "", "", v).ok()) return 1;
    }
    query::RowsBuilder eb = *query::RowsBuilder::Make(*edge);
    for (uint64_t i = 0; i < edges.size(); ++i) {
      if (!eb.Append("k" + std::to_string(i), PersonId(edges[i].first), PersonId(edges[i].second),
                     {})
               .ok()) {
        return 1;
      }
    }
    engine::WriteRequest w;
    w.changes["node:Person"] =
        engine::TableChange{engine::TableChange::Op::kAppend, *pb.Finish(), {}};
    w.changes["edge:Knows"] =
        engine::TableChange{engine::TableChange::Op::kAppend, *eb.Finish(), {}};
    Result<engine::WriteResult> written = engine::Write(**graph, w);
    if (!written.ok()) {
      std::fprintf(stderr, "write: %s\n", written.status().ToString().c_str());
      return 1;
    }
  }
  const double ours_load_s = static_cast<double>(NowNanos() - t0) / 1e9;
  engine::Snapshot snap = *(*graph)->SnapshotOfBranch("main");
  query::QueryFile file = *query::ParseQueryFile(kQueries);
  std::map<std::string, query::CheckedQuery> checked;
  for (const char* name : {"lookup", "hop1", "hop2", "scan_order_limit"}) {
    checked.emplace(name, *query::TypecheckQuery(snap.catalog(), *file.Find(name)));
  }
  query::ExecCache cache;
  engine::RunOptions opt;
  opt.cache = &cache;
  opt.now_ms = 0;

  // ---- SQLite.
  t0 = NowNanos();
  std::string path = "/tmp/omnigraph-bench-query-" + std::to_string(NowNanos()) + ".db";
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return 1;
  auto exec = [&](const char* sql) {
    return Check(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), db, sql);
  };
  if (!exec("PRAGMA journal_mode=WAL") || !exec("PRAGMA synchronous=NORMAL") ||
      !exec(
          "CREATE TABLE person (id TEXT PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL)") ||
      !exec("CREATE TABLE knows (id TEXT PRIMARY KEY, src TEXT NOT NULL, dst TEXT NOT NULL)") ||
      !exec("BEGIN")) {
    return 1;
  }
  {
    sqlite3_stmt* ins = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO person VALUES (?1, ?1, ?2)", -1, &ins, nullptr);
    for (uint64_t i = 0; i < persons; ++i) {
      std::string id = PersonId(i);
      sqlite3_bind_text(ins, 1, id.c_str(), static_cast<int>(id.size()), SQLITE_TRANSIENT);
      sqlite3_bind_int(ins, 2, ages[i]);
      if (!Check(sqlite3_step(ins), db, "insert person")) return 1;
      sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    sqlite3_prepare_v2(db, "INSERT INTO knows VALUES (?1, ?2, ?3)", -1, &ins, nullptr);
    for (uint64_t i = 0; i < edges.size(); ++i) {
      std::string id = "k" + std::to_string(i), s = PersonId(edges[i].first),
                  d = PersonId(edges[i].second);
      sqlite3_bind_text(ins, 1, id.c_str(), static_cast<int>(id.size()), SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 2, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 3, d.c_str(), static_cast<int>(d.size()), SQLITE_TRANSIENT);
      if (!Check(sqlite3_step(ins), db, "insert knows")) return 1;
      sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
  }
  if (!exec("COMMIT") || !exec("CREATE INDEX knows_src ON knows(src)") ||
      !exec("CREATE INDEX knows_dst ON knows(dst)") || !exec("ANALYZE")) {
    return 1;
  }
  const double sqlite_load_s = static_cast<double>(NowNanos() - t0) / 1e9;
  const char* sql_lookup = "SELECT name, age FROM person WHERE id = ?1";
  const char* sql_hop1 = "SELECT COUNT(DISTINCT dst) FROM knows WHERE src = ?1";
  const char* sql_hop2 =
      "SELECT COUNT(*) FROM (SELECT DISTINCT k2.dst AS d FROM knows k1 JOIN knows k2 ON k2.src = "
      "k1.dst WHERE k1.src = ?1) WHERE d <> ?1 AND d NOT IN (SELECT dst FROM knows WHERE src = "
      "?1)";
  const char* sql_scan =
      "SELECT name, age FROM person WHERE age > ?1 ORDER BY age DESC, id ASC LIMIT 10";
  std::map<std::string, sqlite3_stmt*> stmts;
  for (auto [name, sql] :
       std::vector<std::pair<std::string, const char*>>{{"lookup", sql_lookup},
                                                        {"hop1", sql_hop1},
                                                        {"hop2", sql_hop2},
                                                        {"scan_order_limit", sql_scan}}) {
    sqlite3_stmt* st = nullptr;
    if (!Check(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), db, sql)) return 1;
    stmts[name] = st;
  }

  // Warm both sides once (our first query builds the table images and the adjacency).
  t0 = NowNanos();
  for (const char* name : {"lookup", "hop1", "hop2"}) {
    Result<query::QueryResult> warm =
        engine::RunChecked(snap, checked.at(name), Json{{"n", PersonId(0)}}, opt);
    if (!warm.ok()) {
      std::fprintf(stderr, "%s: %s\n", name, warm.status().ToString().c_str());
      return 1;
    }
  }
  const double warm_ms = static_cast<double>(NowNanos() - t0) / 1e6;
  // SQLite's first run of the same three queries, as the reference for our warm-up (its indexes
  // were built by the load; ours — table images and the adjacency — by the first query).
  t0 = NowNanos();
  for (const char* name : {"lookup", "hop1", "hop2"}) {
    sqlite3_stmt* st = stmts.at(name);
    const std::string id = PersonId(0);
    sqlite3_bind_text(st, 1, id.c_str(), static_cast<int>(id.size()), SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
    }
    sqlite3_reset(st);
  }
  const double sqlite_warm_ms = static_cast<double>(NowNanos() - t0) / 1e6;

  std::vector<Shape> shapes = {
      {"lookup", {}, {}}, {"hop1", {}, {}}, {"hop2", {}, {}}, {"scan_order_limit", {}, {}}};
  int mismatches = 0;
  for (Shape& shape : shapes) {
    sqlite3_stmt* st = stmts.at(shape.name);
    const bool scan = shape.name == "scan_order_limit";
    const int runs = scan ? std::max(1, starts / 20) : starts;
    for (int i = 0; i < runs; ++i) {
      const uint64_t start = rng() % persons;
      const int threshold = 90 + static_cast<int>(rng() % 9);
      Json params = scan ? Json{{"a", threshold}} : Json{{"n", PersonId(start)}};
      int64_t a = NowNanos();
      Result<query::QueryResult> r = engine::RunChecked(snap, checked.at(shape.name), params, opt);
      int64_t b = NowNanos();
      if (!r.ok()) {
        std::fprintf(stderr, "%s: %s\n", shape.name.c_str(), r.status().ToString().c_str());
        return 1;
      }
      std::string id = PersonId(start);
      if (scan) {
        sqlite3_bind_int(st, 1, threshold);
      } else {
        sqlite3_bind_text(st, 1, id.c_str(), static_cast<int>(id.size()), SQLITE_TRANSIENT);
      }
      std::vector<std::vector<std::string>> sql_rows;
      int rc;
      while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int c = 0; c < sqlite3_column_count(st); ++c) {
          const unsigned char* text = sqlite3_column_text(st, c);
          row.push_back(text ? reinterpret_cast<const char*>(text) : "");
        }
        sql_rows.push_back(std::move(row));
      }
      sqlite3_reset(st);
      int64_t c = NowNanos();
      if (!Check(rc, db, shape.name.c_str())) return 1;
      shape.ours_us.push_back(static_cast<double>(b - a) / 1e3);
      shape.sqlite_us.push_back(static_cast<double>(c - b) / 1e3);
      // Compare answers as text.
      std::vector<std::vector<std::string>> our_rows;
      for (const std::vector<schema::Value>& row : r->rows) {
        std::vector<std::string> out;
        for (const schema::Value& v : row) {
          out.push_back(v.tag() == schema::Value::Tag::kString ? v.string_value()
                                                               : v.DebugString());
        }
        our_rows.push_back(std::move(out));
      }
      if (our_rows != sql_rows && mismatches++ < 5) {
        std::fprintf(stderr, "omnigraph-bench query: %s answers differ for %s (%zu vs %zu rows)\n",
                     shape.name.c_str(), scan ? std::to_string(threshold).c_str() : id.c_str(),
                     our_rows.size(), sql_rows.size());
      }
    }
  }
  for (auto& [name, st] : stmts) sqlite3_finalize(st);
  sqlite3_close(db);
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());

  if (!json) {
    std::printf(
        "graph: %llu persons, %llu knows; load ours %.1f s, sqlite %.1f s; warm-up %.1f ms "
        "(sqlite's first run %.1f ms)\n",
        static_cast<unsigned long long>(persons), static_cast<unsigned long long>(knows),
        ours_load_s, sqlite_load_s, warm_ms, sqlite_warm_ms);
    std::printf("%-18s %10s %10s %12s %12s %8s\n", "query", "p50_us", "p99_us", "sqlite_p50",
                "sqlite_p99", "ratio");
  }
  for (Shape& s : shapes) {
    double p50 = Percentile(s.ours_us, 50), p99 = Percentile(s.ours_us, 99);
    double q50 = Percentile(s.sqlite_us, 50), q99 = Percentile(s.sqlite_us, 99);
    double ratio = q50 > 0 ? p50 / q50 : 0;
    if (json) {
      std::printf(
          "{\"query\":\"%s\",\"persons\":%llu,\"knows\":%llu,\"samples\":%zu,\"p50_us\":%.2f,"
          "\"p99_us\":%.2f,\"sqlite_p50_us\":%.2f,\"sqlite_p99_us\":%.2f,\"ratio_vs_sqlite\":%.3f,"
          "\"answers_match\":%s}\n",
          s.name.c_str(), static_cast<unsigned long long>(persons),
          static_cast<unsigned long long>(knows), s.ours_us.size(), p50, p99, q50, q99, ratio,
          mismatches == 0 ? "true" : "false");
    } else {
      std::printf("%-18s %10.1f %10.1f %12.1f %12.1f %8.3f\n", s.name.c_str(), p50, p99, q50, q99,
                  ratio);
    }
  }
  if (json) {
    // The first run of lookup + hop1 + hop2 on a fresh snapshot (it builds the table images and
    // the adjacency) beside SQLite's first run of the same three.
    std::printf(
        "{\"query\":\"warm_up\",\"persons\":%llu,\"knows\":%llu,\"ms\":%.1f,\"sqlite_ms\":%.1f,"
        "\"ratio_vs_sqlite\":%.1f}\n",
        static_cast<unsigned long long>(persons), static_cast<unsigned long long>(knows), warm_ms,
        sqlite_warm_ms, sqlite_warm_ms > 0 ? warm_ms / sqlite_warm_ms : 0.0);
  }
  if (mismatches > 0) {
    std::fprintf(stderr, "omnigraph-bench query: %d answers differ\n", mismatches);
    return 1;
  }
  return 0;
}

Registrar reg("query",
              "read-query latency (lookup, hop1, hop2, scan_order_limit) beside SQLite on a "
              "generated graph",
              QueryMain);

}  // namespace
}  // namespace omnigraph::bench

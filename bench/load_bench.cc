// omnigraph-bench load: bulk NDJSON load speed and memory beside SQLite's bulk insert
// (docs/design/load.md).
//
// Generates a graph of `--nodes` Person nodes {name (key), age, city} and `--edges` Knows edges
// {since: Date} between random people, as an NDJSON file in the load format, then:
//   ours:   engine::LoadFile of that file (append) into a new graph on the backend (`file`: a
//           local directory; `memory`), one commit; the time covers reading and parsing the file,
//           building and writing the fragments and publishing;
//   SQLite: the same rows (from the generator, not parsed from JSON) inserted into a fresh
//           database file in WAL mode, tables with `id TEXT PRIMARY KEY`, indexes on the edge
//           `src` and `dst`, one transaction, prepared statements.
// Both must hold the same counts. Reports entities/s for both, their ratio, and the process's peak
// RSS right after our load (SQLite runs after it). Timing is reported, never asserted.
#include <sqlite3.h>
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "bench/bench.h"
#include "engine/graph/graph.h"
#include "engine/ops/jsonl_values.h"
#include "engine/ops/load.h"
#include "schema/temporal.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"

namespace omnigraph::bench {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32  city: String }
edge Knows: Person -> Person { since: Date }
)";

#define LOAD_BENCH_CHECK(expr)                                                   \
  do {                                                                           \
    ::omnigraph::Status s_ = ::omnigraph::internal::ToStatus(expr);              \
    if (!s_.ok()) {                                                              \
      std::fprintf(stderr, "omnigraph-bench load: %s\n", s_.ToString().c_str()); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

// A small deterministic generator (splitmix64), so that both sides see the same rows.
struct Gen {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

struct PersonRow {
  std::string name;
  int age;
  std::string city;
};
struct KnowsRow {
  std::string src, dst;
  int since_days;
};

PersonRow Person(uint64_t i, Gen& g) {
  return {"p" + std::to_string(i), static_cast<int>(g.Next() % 100),
          "city" + std::to_string(g.Next() % 1000)};
}
KnowsRow Knows(uint64_t nodes, Gen& g) {
  return {"p" + std::to_string(g.Next() % nodes), "p" + std::to_string(g.Next() % nodes),
          static_cast<int>(15000 + g.Next() % 5000)};
}

// Writes the NDJSON file; returns its size in bytes.
uint64_t Generate(const std::string& path, uint64_t nodes, uint64_t edges) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  Gen g{42};
  uint64_t bytes = 0;
  std::string line;
  for (uint64_t i = 0; i < nodes; ++i) {
    PersonRow p = Person(i, g);
    line = "{\"type\":\"Person\",\"data\":{\"name\":\"" + p.name +
           "\",\"age\":" + std::to_string(p.age) + ",\"city\":\"" + p.city + "\"}}\n";
    bytes += std::fwrite(line.data(), 1, line.size(), f);
  }
  for (uint64_t i = 0; i < edges; ++i) {
    KnowsRow k = Knows(nodes, g);
    line = "{\"edge\":\"Knows\",\"from\":\"" + k.src + "\",\"to\":\"" + k.dst +
           "\",\"data\":{\"since\":\"" + schema::FormatDate(k.since_days) + "\"}}\n";
    bytes += std::fwrite(line.data(), 1, line.size(), f);
  }
  std::fclose(f);
  return bytes;
}

int Exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::fprintf(stderr, "omnigraph-bench load: sqlite: %s: %s\n", sql, error);
    sqlite3_free(error);
    return 1;
  }
  return 0;
}

// Loads the generator's rows into SQLite; returns the seconds taken, or a negative on error.
double LoadSqlite(const std::string& path, uint64_t nodes, uint64_t edges, uint64_t* people,
                  uint64_t* knows) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return -1;
  const int64_t start = NowNanos();
  if (Exec(db, "PRAGMA journal_mode=WAL") ||
      Exec(db,
           "CREATE TABLE person(id TEXT PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, "
           "city TEXT NOT NULL)") ||
      Exec(db,
           "CREATE TABLE knows(id TEXT PRIMARY KEY, src TEXT NOT NULL, dst TEXT NOT NULL, since "
           "INTEGER NOT NULL)") ||
      Exec(db, "CREATE INDEX knows_src ON knows(src)") ||
      Exec(db, "CREATE INDEX knows_dst ON knows(dst)") || Exec(db, "BEGIN")) {
    return -1;
  }
  sqlite3_stmt* person = nullptr;
  sqlite3_stmt* edge = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO person VALUES (?1, ?2, ?3, ?4)", -1, &person, nullptr);
  sqlite3_prepare_v2(db, "INSERT INTO knows VALUES (?1, ?2, ?3, ?4)", -1, &edge, nullptr);
  Gen g{42};
  for (uint64_t i = 0; i < nodes; ++i) {
    PersonRow p = Person(i, g);
    sqlite3_bind_text(person, 1, p.name.data(), static_cast<int>(p.name.size()), SQLITE_STATIC);
    sqlite3_bind_text(person, 2, p.name.data(), static_cast<int>(p.name.size()), SQLITE_STATIC);
    sqlite3_bind_int(person, 3, p.age);
    sqlite3_bind_text(person, 4, p.city.data(), static_cast<int>(p.city.size()), SQLITE_STATIC);
    if (sqlite3_step(person) != SQLITE_DONE) return -1;
    sqlite3_reset(person);
  }
  for (uint64_t i = 0; i < edges; ++i) {
    KnowsRow k = Knows(nodes, g);
    const std::string id = "e" + std::to_string(i);
    sqlite3_bind_text(edge, 1, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
    sqlite3_bind_text(edge, 2, k.src.data(), static_cast<int>(k.src.size()), SQLITE_STATIC);
    sqlite3_bind_text(edge, 3, k.dst.data(), static_cast<int>(k.dst.size()), SQLITE_STATIC);
    sqlite3_bind_int(edge, 4, k.since_days);
    if (sqlite3_step(edge) != SQLITE_DONE) return -1;
    sqlite3_reset(edge);
  }
  sqlite3_finalize(person);
  sqlite3_finalize(edge);
  if (Exec(db, "COMMIT")) return -1;
  const double seconds = static_cast<double>(NowNanos() - start) / 1e9;
  sqlite3_stmt* count = nullptr;
  sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM person), (SELECT count(*) FROM knows)", -1,
                     &count, nullptr);
  sqlite3_step(count);
  *people = static_cast<uint64_t>(sqlite3_column_int64(count, 0));
  *knows = static_cast<uint64_t>(sqlite3_column_int64(count, 1));
  sqlite3_finalize(count);
  sqlite3_close(db);
  return seconds;
}

uint64_t PeakRssBytes() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"backend", "root", "nodes", "edges", "json", "threads"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench load: %s\n", flags.error().c_str());
    return 2;
  }
  const std::string backend = flags.Get("backend", "file");
  const uint64_t nodes = static_cast<uint64_t>(flags.GetInt("nodes", 1000000));
  const uint64_t edges = static_cast<uint64_t>(flags.GetInt("edges", 5000000));
  const size_t threads = static_cast<size_t>(flags.GetInt("threads", 2));
  const std::string root =
      flags.Get("root", std::filesystem::temp_directory_path().string() + "/omnigraph-bench-load");
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  std::filesystem::create_directories(root);
  const std::string input = root + "/graph.jsonl";
  const uint64_t input_bytes = Generate(input, nodes, edges);

  std::shared_ptr<storage::ObjectStore> store;
  if (backend == "memory") {
    store = std::make_shared<storage::MemoryStore>();
  } else if (backend == "file") {
    auto local = storage::LocalStore::Open(root + "/graph");
    LOAD_BENCH_CHECK(local.status());
    store = std::shared_ptr<storage::ObjectStore>(std::move(*local));
  } else {
    std::fprintf(stderr, "omnigraph-bench load: unknown backend '%s' (file, memory)\n",
                 backend.c_str());
    return 2;
  }
  storage::Runtime rt = storage::Runtime::ForStore(store, threads);
  auto graph = engine::Graph::Init(rt, kSchema);
  LOAD_BENCH_CHECK(graph.status());
  const int64_t start = NowNanos();
  auto loaded = engine::LoadFile(**graph, "main", input, engine::LoadMode::kAppend);
  const double seconds = static_cast<double>(NowNanos() - start) / 1e9;
  LOAD_BENCH_CHECK(loaded.status());
  const uint64_t peak_rss = PeakRssBytes();
  auto head = (*graph)->SnapshotOfBranch("main");
  LOAD_BENCH_CHECK(head.status());
  auto people = head->Table("node:Person");
  auto knows = head->Table("edge:Knows");
  LOAD_BENCH_CHECK(people.status());
  LOAD_BENCH_CHECK(knows.status());

  uint64_t sql_people = 0, sql_knows = 0;
  const double sql_seconds = LoadSqlite(root + "/sqlite.db", nodes, edges, &sql_people, &sql_knows);
  if (sql_seconds < 0) {
    std::fprintf(stderr, "omnigraph-bench load: the SQLite load failed\n");
    return 1;
  }
  // Keyed people are unique by construction; edges are all distinct rows on both sides.
  const uint64_t ours_people = (*people)->entity_count(), ours_knows = (*knows)->entity_count();
  if (ours_people != sql_people || ours_knows != sql_knows || ours_people != nodes ||
      ours_knows != edges) {
    std::fprintf(
        stderr, "omnigraph-bench load: counts differ: ours %llu/%llu, sqlite %llu/%llu\n",
        static_cast<unsigned long long>(ours_people), static_cast<unsigned long long>(ours_knows),
        static_cast<unsigned long long>(sql_people), static_cast<unsigned long long>(sql_knows));
    return 1;
  }
  const double entities = static_cast<double>(nodes + edges);
  const double ours_rate = entities / seconds, sql_rate = entities / sql_seconds;
  if (flags.Has("json")) {
    std::printf(
        "{\"backend\":\"%s\",\"nodes\":%llu,\"edges\":%llu,\"entities\":%llu,"
        "\"input_bytes\":%llu,\"seconds\":%.3f,\"entities_per_s\":%.0f,"
        "\"sqlite_seconds\":%.3f,\"sqlite_entities_per_s\":%.0f,\"ratio_vs_sqlite\":%.3f,"
        "\"peak_rss_bytes\":%llu,\"threads\":%zu}\n",
        backend.c_str(), static_cast<unsigned long long>(nodes),
        static_cast<unsigned long long>(edges), static_cast<unsigned long long>(nodes + edges),
        static_cast<unsigned long long>(input_bytes), seconds, ours_rate, sql_seconds, sql_rate,
        ours_rate / sql_rate, static_cast<unsigned long long>(peak_rss), threads);
  } else {
    std::printf(
        "%s: %llu entities (%llu bytes of NDJSON): load %.2f s (%.0f entities/s), SQLite %.2f s "
        "(%.0f entities/s), ratio %.2f; peak RSS %.1f MiB\n",
        backend.c_str(), static_cast<unsigned long long>(nodes + edges),
        static_cast<unsigned long long>(input_bytes), seconds, ours_rate, sql_seconds, sql_rate,
        ours_rate / sql_rate, static_cast<double>(peak_rss) / (1 << 20));
  }
  std::filesystem::remove_all(root, ec);
  return 0;
}

Registrar registrar("load", "NDJSON bulk load beside SQLite's bulk insert", &Main);

}  // namespace
}  // namespace omnigraph::bench

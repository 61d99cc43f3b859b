// omnigraph-cold-bench: what a user of the public API meets first — a fresh process's open and
// first query, and a warm point lookup — on a generated social graph in a local store, beside
// SQLite holding the same rows (docs/benchmarks.md "Cold and warm reads").
//
//   omnigraph-cold-bench setup DIR PERSONS KNOWS [SEED]
//       Creates file://DIR/graph (Person {name @key, age}, Knows: Person -> Person with distinct
//       random endpoints, no self-loops) with one load, and DIR/sqlite.db with the same rows
//       (`id TEXT PRIMARY KEY`, indexes on knows(src) and knows(dst)).
//   omnigraph-cold-bench fresh DIR SHAPE
//       One fresh-process run: open + first query of SHAPE (`hop1` from person p1, `top3`: the
//       three persons with the most incoming Knows); prints {"shape", "ms", "peak_rss_bytes",
//       "answer"}.
//   omnigraph-cold-bench run DIR [RUNS]
//       Runs `fresh` for both shapes RUNS times (default 3) as child processes, then the warm
//       lookup (2,000 lookups through Database::Query and through SQLite's prepared statement,
//       same process) and the warm top-3 (5 runs each); prints one JSON object with medians and
//       ratios. The answers of both
//       systems are compared; a mismatch fails the run (exit 1).
// Timing is reported, never asserted.
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace {

using omnigraph::api::Database;
using omnigraph::api::Json;

constexpr const char* kSchema = R"(
node Person { name: String @key  age: I32 }
edge Knows: Person -> Person
)";

constexpr const char* kQueries = R"(
query lookup($n: String) { match { $p: Person { name: $n } } return { $p.name, $p.age } }
query hop1($n: String) { match { $a: Person { name: $n }  $a knows $b } return { count($b) as n } }
query top3() {
  match { $a: Person  $a knows $b }
  return { $b.name, count($a) as n }
  order { n desc, $b.name }
  limit 3
}
)";

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

std::string Person(uint64_t i) { return "p" + std::to_string(i); }

bool Sql(sqlite3* db, const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) == SQLITE_OK) return true;
  std::fprintf(stderr, "sqlite: %s: %s\n", sql, error);
  sqlite3_free(error);
  return false;
}

int Setup(const std::string& dir, uint64_t persons, uint64_t knows, uint64_t seed) {
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(seed);
  std::set<std::pair<uint64_t, uint64_t>> edges;
  while (edges.size() < knows) {
    const uint64_t s = rng() % persons, d = rng() % persons;
    if (s != d) edges.emplace(s, d);
  }
  std::vector<int> ages(persons);
  for (int& a : ages) a = static_cast<int>(rng() % 100);
  std::string ndjson;
  for (uint64_t i = 0; i < persons; ++i) {
    ndjson += "{\"type\":\"Person\",\"data\":{\"name\":\"" + Person(i) +
              "\",\"age\":" + std::to_string(ages[i]) + "}}\n";
  }
  for (const auto& [s, d] : edges) {
    ndjson += "{\"edge\":\"Knows\",\"from\":\"" + Person(s) + "\",\"to\":\"" + Person(d) + "\"}\n";
  }
  const std::string uri = "file://" + dir + "/graph";
  auto db = Database::Init(uri, kSchema);
  if (!db.ok()) return std::fprintf(stderr, "%s\n", db.status().ToString().c_str()), 1;
  const double t0 = NowMs();
  auto loaded = (*db)->Load(ndjson, "overwrite", {});
  if (!loaded.ok()) return std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str()), 1;
  std::fprintf(stderr, "loaded %llu persons, %zu knows in %.1f s\n",
               static_cast<unsigned long long>(persons), edges.size(), (NowMs() - t0) / 1000);
  sqlite3* sql = nullptr;
  std::filesystem::remove(dir + "/sqlite.db");
  if (sqlite3_open((dir + "/sqlite.db").c_str(), &sql) != SQLITE_OK) return 1;
  bool ok = Sql(sql, "PRAGMA journal_mode=WAL") &&
            Sql(sql, "CREATE TABLE person (id TEXT PRIMARY KEY, age INTEGER NOT NULL)") &&
            Sql(sql, "CREATE TABLE knows (src TEXT NOT NULL, dst TEXT NOT NULL)") &&
            Sql(sql, "BEGIN");
  sqlite3_stmt* ins = nullptr;
  sqlite3_prepare_v2(sql, "INSERT INTO person VALUES (?1, ?2)", -1, &ins, nullptr);
  for (uint64_t i = 0; ok && i < persons; ++i) {
    const std::string id = Person(i);
    sqlite3_bind_text(ins, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(ins, 2, ages[i]);
    ok = sqlite3_step(ins) == SQLITE_DONE && sqlite3_reset(ins) == SQLITE_OK;
  }
  sqlite3_finalize(ins);
  sqlite3_prepare_v2(sql, "INSERT INTO knows VALUES (?1, ?2)", -1, &ins, nullptr);
  for (auto it = edges.begin(); ok && it != edges.end(); ++it) {
    const std::string s = Person(it->first), d = Person(it->second);
    sqlite3_bind_text(ins, 1, s.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 2, d.c_str(), -1, SQLITE_TRANSIENT);
    ok = sqlite3_step(ins) == SQLITE_DONE && sqlite3_reset(ins) == SQLITE_OK;
  }
  sqlite3_finalize(ins);
  ok = ok && Sql(sql, "COMMIT") && Sql(sql, "CREATE INDEX knows_src ON knows(src)") &&
       Sql(sql, "CREATE INDEX knows_dst ON knows(dst)");
  sqlite3_close(sql);
  return ok ? 0 : 1;
}

// The answer of a query result as one line: its rows' cells.
std::string Answer(const Json& envelope) { return envelope["rows"].dump(); }

int Fresh(const std::string& dir, const std::string& shape) {
  const double t0 = NowMs();
  auto db = Database::Open("file://" + dir + "/graph");
  if (!db.ok()) return std::fprintf(stderr, "%s\n", db.status().ToString().c_str()), 1;
  Json params = Json::object();
  if (shape == "hop1") params["n"] = Person(1);
  auto result = (*db)->Query(kQueries, shape, params);
  if (!result.ok()) return std::fprintf(stderr, "%s\n", result.status().ToString().c_str()), 1;
  const double ms = NowMs() - t0;
  Json out = Json::object();
  out["shape"] = shape;
  out["ms"] = ms;
  out["peak_rss_bytes"] = PeakRssBytes();
  out["answer"] = Answer(*result);
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

// Runs this binary's `fresh` in a child process; its JSON line, or empty on failure.
std::string Child(const std::string& dir, const std::string& shape) {
  const std::string cmd = "/proc/" + std::to_string(getpid()) + "/exe";
  const std::string line =
      "'" + std::filesystem::read_symlink(cmd).string() + "' fresh '" + dir + "' " + shape;
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string out;
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  return pclose(pipe) == 0 ? out : std::string();
}

// SQLite's answers for the two shapes, from the same rows.
std::string SqliteAnswer(sqlite3* sql, const std::string& shape) {
  const char* q = shape == "hop1"
                      ? "SELECT count(DISTINCT dst) FROM knows WHERE src = 'p1'"
                      : "SELECT dst, count(*) AS n FROM knows GROUP BY dst ORDER BY n DESC, dst "
                        "LIMIT 3";
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(sql, q, -1, &st, nullptr);
  Json rows = Json::array();
  while (sqlite3_step(st) == SQLITE_ROW) {
    Json row = Json::object();
    if (shape == "hop1") {
      row["n"] = static_cast<int64_t>(sqlite3_column_int64(st, 0));
    } else {
      row["b.name"] = std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
      row["n"] = static_cast<int64_t>(sqlite3_column_int64(st, 1));
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  return rows.dump();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The warm top-3 by in-degree, 5 runs each through the public API (after one run that builds
// the images) and SQLite, answers compared.
bool WarmTop3(Database& db, sqlite3* sql, Json& out) {
  auto first = db.Query(kQueries, "top3", Json::object());
  if (!first.ok()) return std::fprintf(stderr, "%s\n", first.status().ToString().c_str()), false;
  std::vector<double> ours, theirs;
  std::string expected;
  for (int i = 0; i < 5; ++i) {
    double t0 = NowMs();
    auto r = db.Query(kQueries, "top3", Json::object());
    ours.push_back(NowMs() - t0);
    t0 = NowMs();
    expected = SqliteAnswer(sql, "top3");
    theirs.push_back(NowMs() - t0);
    if (!r.ok() || Answer(*r) != expected) {
      std::fprintf(stderr, "warm top3: ours %s, sqlite %s\n",
                   r.ok() ? Answer(*r).c_str() : r.status().ToString().c_str(), expected.c_str());
      return false;
    }
  }
  out["warm_top3_ms"] = Median(ours);
  out["sqlite_top3_ms"] = Median(theirs);
  out["warm_top3_ratio"] = Median(ours) / Median(theirs);
  return true;
}

// Warm point lookups through the public API and through SQLite, interleaved per start.
bool Warm(const std::string& dir, sqlite3* sql, Json& out) {
  auto db = Database::Open("file://" + dir + "/graph");
  if (!db.ok()) return false;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(sql, "SELECT id, age FROM person WHERE id = ?1", -1, &st, nullptr);
  std::vector<double> ours, theirs;
  std::mt19937_64 rng(7);
  Json params = Json::object();
  params["n"] = Person(0);
  if (!(*db)->Query(kQueries, "lookup", params).ok()) return false;
  for (int i = 0; i < 2000; ++i) {
    const std::string id = Person(rng() % 1000);
    params["n"] = id;
    double t0 = NowMs();
    auto r = (*db)->Query(kQueries, "lookup", params);
    ours.push_back((NowMs() - t0) * 1000);
    t0 = NowMs();
    sqlite3_bind_text(st, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    int64_t age = -1;
    if (sqlite3_step(st) == SQLITE_ROW) age = sqlite3_column_int64(st, 1);
    sqlite3_reset(st);
    theirs.push_back((NowMs() - t0) * 1000);
    if (!r.ok() || (*r)["rows"][0]["p.age"].dump() != std::to_string(age)) {
      std::fprintf(stderr, "lookup %s: answers differ\n", id.c_str());
      return false;
    }
  }
  sqlite3_finalize(st);
  out["warm_lookup_us"] = Median(ours);
  out["sqlite_lookup_us"] = Median(theirs);
  out["warm_lookup_ratio"] = Median(ours) / Median(theirs);
  return WarmTop3(**db, sql, out);
}

int Run(const std::string& dir, int runs) {
  sqlite3* sql = nullptr;
  if (sqlite3_open_v2((dir + "/sqlite.db").c_str(), &sql, SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK) {
    return 1;
  }
  Json out = Json::object();
  for (const std::string shape : {"hop1", "top3"}) {
    std::vector<double> ms, rss;
    std::string answer;
    for (int i = 0; i < runs; ++i) {
      auto line = Child(dir, shape);
      auto parsed = omnigraph::api::ParseJson(line, "child");
      if (!parsed.ok()) return std::fprintf(stderr, "fresh %s failed\n", shape.c_str()), 1;
      ms.push_back((*parsed)["ms"].get<double>());
      rss.push_back((*parsed)["peak_rss_bytes"].get<double>() / (1 << 20));
      answer = (*parsed)["answer"].string_value();
    }
    if (answer != SqliteAnswer(sql, shape)) {
      std::fprintf(stderr, "%s: ours %s, sqlite %s\n", shape.c_str(), answer.c_str(),
                   SqliteAnswer(sql, shape).c_str());
      return 1;
    }
    out["fresh_" + shape + "_ms"] = Median(ms);
    out["fresh_" + shape + "_peak_mib"] = Median(rss);
  }
  if (!Warm(dir, sql, out)) return 1;
  sqlite3_close(sql);
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() >= 4 && a[0] == "setup") {
    return Setup(a[1], std::stoull(a[2]), std::stoull(a[3]), a.size() > 4 ? std::stoull(a[4]) : 42);
  }
  if (a.size() == 3 && a[0] == "fresh") return Fresh(a[1], a[2]);
  if (a.size() >= 2 && a[0] == "run") return Run(a[1], a.size() > 2 ? std::stoi(a[2]) : 3);
  std::fprintf(stderr,
               "usage: omnigraph-cold-bench setup DIR PERSONS KNOWS [SEED] | fresh DIR SHAPE | "
               "run DIR [RUNS]\n");
  return 2;
}

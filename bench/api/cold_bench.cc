// omnigraph-cold-bench: what a user of the public API meets — load, warm reads, and a fresh
// process's open + first query — on a generated social graph in a local store, beside SQLite
// holding the very same rows. bench/peers/run.sh drives it beside Kùzu and DuckDB
// (docs/benchmarks.md "OmniGraph beside Kùzu, DuckDB and SQLite").
//
//   omnigraph-cold-bench gen DIR PERSONS KNOWS [SEED] [--int-keys]
//       Writes the graph once, seeded, for every system: DIR/persons.csv (name,age),
//       DIR/knows.csv (from,to: KNOWS distinct pairs, no self-loops, in random order) and
//       DIR/graph.ndjson (the same rows in OmniGraph's load format) and DIR/schema.pg.
//       Persons are keyed by a String `name` ("p17"), or with --int-keys by an I64 `pid` (17;
//       persons.csv's header is then pid,age): every later command reads which from that header.
//   omnigraph-cold-bench gen-docs DIR DOCS [SEED]
//       Writes DIR/docs.ndjson: DOCS `Doc` nodes, each a 32-dimensional uniform random unit
//       vector, and DIR/schema-docs.pg: the graph's schema plus `Doc` (for the `nearest` shape;
//       the peers benchmark does not load them).
//   omnigraph-cold-bench load DIR
//       Loads DIR's files into file://DIR/graph through Database::LoadFile and into DIR/sqlite.db
//       (`id TEXT PRIMARY KEY`, indexes on knows(src) and knows(dst)); prints
//       {"omnigraph_api_load_s", "sqlite_load_s", "sqlite_version"}.
//   omnigraph-cold-bench setup DIR PERSONS KNOWS [SEED]
//       gen, then load.
//   omnigraph-cold-bench warm DIR PERSONS omnigraph|sqlite
//       In one process: lookups, 1-hop counts, 2-hop distinct counts (each over a fixed list of
//       starts), top-3 by in-degree and the three most common ages (age_groups); prints {"system",
//       "<shape>_ms" (medians), "answers"}, and "hop1_first20_ms": the median of the first 20 1-hop
//       calls, each from a start no query has touched (a moderately warm process); for the 1-hop
//       and 2-hop also the slowest call and the total ("hop1_max_ms", "hop1_total_ms", ...).
//   omnigraph-cold-bench first DIR PERSONS omnigraph|sqlite
//       warm's lookups, then only its first 20 1-hop starts; prints "hop1_first20_ms" and every
//       start's time ("hop1_each_ms", the untimed warm-up first) and the store calls before and
//       after the 1-hops.
//   omnigraph-cold-bench fresh DIR SHAPE omnigraph|sqlite
//       One fresh process: open + first query of SHAPE (`lookup` or `hop1` of p1, or of person
//       OMNIGRAPH_BENCH_START when set, `top3`, `age_groups`, `knows_by_age`, or
//       `nearest`: the 10 `Doc`s nearest a fixed vector, on a graph that has them) of
//       the graph in DIR, or at OMNIGRAPH_BENCH_GRAPH_URI when set (e.g. an s3:// graph behind
//       bench/api/delay_proxy.py, to see what a remote store's rounds cost); prints
//       {"system", "shape", "ms", "minor_faults", "peak_rss_bytes", "answer", "store_calls"}
//       (store_calls: OmniGraph's object-store gets, heads, lists, bytes read and dependent request
//       rounds for the open and the query).
// The start lists and answer shapes are the ones bench/peers/peer.mjs uses, so answers compare
// as JSON text. Timing is reported, never asserted.
#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace {

using omnigraph::api::Database;
using omnigraph::api::Json;

// The schema and queries are written once with @K@ for the key property and @T@ for its type.
constexpr const char* kSchema = R"(
node Person { @K@: @T@ @key  age: I32 }
edge Knows: Person -> Person
)";

// hop2 counts the nodes at exactly distance 2 (neither the start nor a 1-hop neighbour).
// age_groups groups the Person table by a value (age, 0..99): the three most common ages, each
// with its count and its smallest key, ties by age. knows_by_age groups a traversal by a value:
// the three ages whose persons are known most often (edges into persons of that age). top3
// examines every edge: on the 10x graph (24 M edges) that is past the default traversal bound
// (10 M units, which guards a server against runaway reads), so the file raises it, as an
// analyst running whole-graph aggregates would.
constexpr const char* kQueries = R"(
set traversal_work_limit = 1000000000;
query lookup($n: @T@) { match { $p: Person { @K@: $n } } return { $p.@K@, $p.age } }
query hop1($n: @T@) { match { $a: Person { @K@: $n }  $a knows $b } return { count($b) as n } }
query hop2($n: @T@) { match { $a: Person { @K@: $n }  $a knows{2,2} $b } return { count($b) as n } }
query top3() {
  match { $a: Person  $a knows $b }
  return { $b.@K@, count($a) as n }
  order { n desc, $b.@K@ }
  limit 3
}
query age_groups() {
  match { $p: Person }
  return { $p.age, count($p) as n, min($p.@K@) as first }
  order { n desc, $p.age }
  limit 3
}
query knows_by_age() {
  match { $a: Person  $a knows $b }
  return { $b.age, count($a) as n }
  order { n desc, $b.age }
  limit 3
}
)";

// How the persons are keyed: a String `name` "p<i>" or, with integer keys, an I64 `pid` i.
struct Keys {
  bool integer = false;
  const char* property() const { return integer ? "pid" : "name"; }
  // `text` with @K@ and @T@ replaced by the key property and its type.
  std::string Fill(std::string text) const {
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"@K@", property()},
                                   {"@T@", integer ? "I64" : "String"}}) {
      for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
        text.replace(at, from.size(), to);
      }
    }
    return text;
  }
  // The i-th person's key as the CSV files and the start lists spell it.
  std::string Person(uint64_t i) const { return (integer ? "" : "p") + std::to_string(i); }
};

// The keys of the graph gen wrote in `dir`: persons.csv's header names the key column.
Keys KeysOf(const std::string& dir) {
  std::ifstream in(dir + "/persons.csv");
  std::string header;
  std::getline(in, header);
  return Keys{header.rfind("pid,", 0) == 0};
}

// The `nearest` shape's type and query (a graph made from schema-docs.pg and docs.ndjson).
constexpr int kDocDim = 32;
constexpr const char* kDocSchema = "node Doc { slug: String @key  emb: Vector(32) }\n";
constexpr const char* kDocQueries = R"(
query nearest($q: Vector(32)) {
  match { $d: Doc }
  return { $d.slug }
  order { nearest($d.emb, $q) }
  limit 10
}
)";

constexpr const char* kSqlLookup = "SELECT age FROM person WHERE id = ?1";
constexpr const char* kSqlHop1 = "SELECT count(DISTINCT dst) FROM knows WHERE src = ?1";
constexpr const char* kSqlHop2 =
    "SELECT count(*) FROM (SELECT DISTINCT k2.dst AS d FROM knows k1 JOIN knows k2 ON k2.src = "
    "k1.dst WHERE k1.src = ?1) WHERE d <> ?1 AND d NOT IN (SELECT dst FROM knows WHERE src = ?1)";
constexpr const char* kSqlTop3 =
    "SELECT dst, count(*) AS n FROM knows GROUP BY dst ORDER BY n DESC, dst LIMIT 3";
constexpr const char* kSqlAgeGroups =
    "SELECT age, count(*) AS n, min(id) AS first FROM person GROUP BY age ORDER BY n DESC, age "
    "LIMIT 3";
constexpr const char* kSqlKnowsByAge =
    "SELECT p.age, count(*) AS n FROM knows k JOIN person p ON p.id = k.dst GROUP BY p.age "
    "ORDER BY n DESC, p.age LIMIT 3";

// How many starts each warm shape runs (the same in bench/peers/peer.mjs).
constexpr int kLookupStarts = 2000;
constexpr int kHop1Starts = 500;
constexpr int kHop2Starts = 100;
constexpr int kTop3Runs = 5;
constexpr int kAgeGroupsRuns = 5;
constexpr int kKnowsByAgeRuns = 5;

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

// The process's minor page faults so far: a fresh query's first touches of memory, which cost
// far more on some virtual machines than on others (decision 249).
uint64_t MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_minflt);
}

// The i-th start of a warm shape: spread over the persons, the same in every system.
std::string Start(const Keys& keys, uint64_t i, uint64_t persons) {
  return keys.Person((i * 7919 + 13) % persons);
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "omnigraph-cold-bench: %s\n", what.c_str());
  return 1;
}

// Distinct (src, dst) pairs without self-loops, in a seeded random order.
std::vector<std::pair<uint64_t, uint64_t>> Edges(uint64_t persons, uint64_t knows,
                                                 std::mt19937_64& rng) {
  std::vector<uint64_t> codes;
  while (codes.size() < knows) {
    while (codes.size() < knows + knows / 64 + 16) {
      const uint64_t s = rng() % persons, d = rng() % persons;
      if (s != d) codes.push_back(s * persons + d);
    }
    std::sort(codes.begin(), codes.end());
    codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  }
  std::shuffle(codes.begin(), codes.end(), rng);
  codes.resize(knows);
  std::vector<std::pair<uint64_t, uint64_t>> edges;
  edges.reserve(knows);
  for (uint64_t c : codes) edges.emplace_back(c / persons, c % persons);
  return edges;
}

int Gen(const std::string& dir, uint64_t persons, uint64_t knows, uint64_t seed, Keys keys) {
  if (persons < 2 || knows > persons * (persons - 1) / 2) return Fail("too many edges");
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(seed);
  std::FILE* csv_p = std::fopen((dir + "/persons.csv").c_str(), "wb");
  std::FILE* csv_k = std::fopen((dir + "/knows.csv").c_str(), "wb");
  std::FILE* nd = std::fopen((dir + "/graph.ndjson").c_str(), "wb");
  std::FILE* pg = std::fopen((dir + "/schema.pg").c_str(), "wb");
  if (csv_p == nullptr || csv_k == nullptr || nd == nullptr || pg == nullptr) {
    return Fail("cannot write " + dir);
  }
  std::fputs(keys.Fill(kSchema).c_str(), pg);
  std::fprintf(csv_p, "%s,age\n", keys.property());
  // A string key is quoted in the load file, an integer one is a JSON number; an edge names its
  // endpoints by their ids, which are strings either way.
  const char* quote = keys.integer ? "" : "\"";
  for (uint64_t i = 0; i < persons; ++i) {
    const int age = static_cast<int>(rng() % 100);
    const std::string key = keys.Person(i);
    std::fprintf(csv_p, "%s,%d\n", key.c_str(), age);
    std::fprintf(nd, "{\"type\":\"Person\",\"data\":{\"%s\":%s%s%s,\"age\":%d}}\n", keys.property(),
                 quote, key.c_str(), quote, age);
  }
  std::fprintf(csv_k, "from,to\n");
  for (const auto& [s, d] : Edges(persons, knows, rng)) {
    const std::string a = keys.Person(s), b = keys.Person(d);
    std::fprintf(csv_k, "%s,%s\n", a.c_str(), b.c_str());
    std::fprintf(nd, "{\"edge\":\"Knows\",\"from\":\"%s\",\"to\":\"%s\"}\n", a.c_str(), b.c_str());
  }
  const bool ok = std::fclose(csv_p) == 0 && std::fclose(csv_k) == 0 && std::fclose(nd) == 0 &&
                  std::fclose(pg) == 0;
  return ok ? 0 : Fail("writing " + dir + " failed");
}

// A uniform random unit vector of kDocDim floats.
std::vector<float> UnitVector(std::mt19937_64& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> v(kDocDim);
  float norm = 0;
  for (float& x : v) {
    x = normal(rng);
    norm += x * x;
  }
  for (float& x : v) x /= std::sqrt(norm);
  return v;
}

int GenDocs(const std::string& dir, uint64_t docs, uint64_t seed) {
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(seed);
  std::FILE* nd = std::fopen((dir + "/docs.ndjson").c_str(), "wb");
  std::FILE* pg = std::fopen((dir + "/schema-docs.pg").c_str(), "wb");
  if (nd == nullptr || pg == nullptr) return Fail("cannot write " + dir);
  std::fputs(Keys{}.Fill(kSchema).c_str(), pg);
  std::fputs(kDocSchema, pg);
  for (uint64_t i = 0; i < docs; ++i) {
    std::fprintf(nd, "{\"type\":\"Doc\",\"data\":{\"slug\":\"d%llu\",\"emb\":[",
                 static_cast<unsigned long long>(i));
    const std::vector<float> v = UnitVector(rng);
    for (int j = 0; j < kDocDim; ++j) std::fprintf(nd, "%s%.7g", j == 0 ? "" : ",", v[j]);
    std::fputs("]}}\n", nd);
  }
  const bool ok = std::fclose(nd) == 0 && std::fclose(pg) == 0;
  return ok ? 0 : Fail("writing " + dir + " failed");
}

bool Sql(sqlite3* db, const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) == SQLITE_OK) return true;
  std::fprintf(stderr, "sqlite: %s: %s\n", sql, error);
  sqlite3_free(error);
  return false;
}

// Inserts each data line of the CSV at `path` (two columns) through `insert`; a column is bound
// as an integer when its flag says so.
bool InsertCsv(sqlite3* db, const std::string& path, const char* insert, bool int_first,
               bool int_second) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return false;  // The header.
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, insert, -1, &st, nullptr) != SQLITE_OK) return false;
  bool ok = true;
  while (ok && std::getline(in, line)) {
    const size_t comma = line.find(',');
    if (comma == std::string::npos) return sqlite3_finalize(st), false;
    if (int_first) {
      sqlite3_bind_int64(st, 1, std::atoll(line.c_str()));
    } else {
      sqlite3_bind_text(st, 1, line.data(), static_cast<int>(comma), SQLITE_TRANSIENT);
    }
    if (int_second) {
      sqlite3_bind_int64(st, 2, std::atoll(line.c_str() + comma + 1));
    } else {
      sqlite3_bind_text(st, 2, line.c_str() + comma + 1, -1, SQLITE_TRANSIENT);
    }
    ok = sqlite3_step(st) == SQLITE_DONE && sqlite3_reset(st) == SQLITE_OK;
  }
  sqlite3_finalize(st);
  return ok;
}

// SQLite's best idiom for each key: an integer key is the table's rowid (INTEGER PRIMARY KEY).
bool LoadSqlite(const std::string& dir, const Keys& keys) {
  sqlite3* sql = nullptr;
  std::filesystem::remove(dir + "/sqlite.db");
  if (sqlite3_open((dir + "/sqlite.db").c_str(), &sql) != SQLITE_OK) return false;
  const std::string type = keys.integer ? "INTEGER" : "TEXT";
  const bool i = keys.integer;
  const bool ok =
      Sql(sql, "PRAGMA journal_mode=WAL") &&
      Sql(sql,
          ("CREATE TABLE person (id " + type + " PRIMARY KEY, age INTEGER NOT NULL)").c_str()) &&
      Sql(sql,
          ("CREATE TABLE knows (src " + type + " NOT NULL, dst " + type + " NOT NULL)").c_str()) &&
      Sql(sql, "BEGIN") &&
      InsertCsv(sql, dir + "/persons.csv", "INSERT INTO person VALUES (?1, ?2)", i, true) &&
      InsertCsv(sql, dir + "/knows.csv", "INSERT INTO knows VALUES (?1, ?2)", i, i) &&
      Sql(sql, "COMMIT") && Sql(sql, "CREATE INDEX knows_src ON knows(src)") &&
      Sql(sql, "CREATE INDEX knows_dst ON knows(dst)");
  sqlite3_close(sql);
  return ok;
}

int Load(const std::string& dir) {
  const Keys keys = KeysOf(dir);
  std::filesystem::remove_all(dir + "/graph");
  auto db = Database::Init("file://" + dir + "/graph", keys.Fill(kSchema));
  if (!db.ok()) return Fail(db.status().ToString());
  double t0 = NowMs();
  auto loaded = (*db)->LoadFile(dir + "/graph.ndjson", "overwrite", {});
  if (!loaded.ok()) return Fail(loaded.status().ToString());
  Json out = Json::object();
  out["omnigraph_api_load_s"] = (NowMs() - t0) / 1000;
  t0 = NowMs();
  if (!LoadSqlite(dir, keys)) return Fail("sqlite load failed");
  out["sqlite_load_s"] = (NowMs() - t0) / 1000;
  out["sqlite_version"] = sqlite3_libversion();
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

// A top-3 row: [name, in-degree].
Json Pair(Json name, Json n) {
  Json pair = Json::array();
  pair.push_back(std::move(name));
  pair.push_back(std::move(n));
  return pair;
}

// One system's answers to the four shapes, in the shapes bench/peers/peer.mjs prints: a lookup
// is the person's age, a count a number, top-3 an array of [name, in-degree].
class System {
 public:
  virtual ~System() = default;
  virtual bool Lookup(const std::string& name, Json& out) = 0;
  virtual bool Hop(int hops, const std::string& name, Json& out) = 0;
  virtual bool Top3(Json& out) = 0;
  // The three most common ages: an array of [age, count, smallest name].
  virtual bool AgeGroups(Json& out) = 0;
  // The three ages known most often: an array of [age, count].
  virtual bool KnowsByAge(Json& out) = 0;
  // The slugs of the 10 `Doc`s nearest a fixed vector (a system without vectors says no).
  virtual bool Nearest(Json& out) {
    (void)out;
    return false;
  }
  // The object-store calls made so far, where the system counts them (else null).
  virtual Json StoreCalls() const { return Json(); }
};

class OmniGraph final : public System {
 public:
  OmniGraph(std::unique_ptr<Database> db, const Keys& keys)
      : db_(std::move(db)), keys_(keys), queries_(keys.Fill(kQueries)) {}
  bool Lookup(const std::string& name, Json& out) override {
    auto rows = Rows("lookup", name);
    if (!rows || rows->size() != 1) return false;
    out = (*rows)[0]["p.age"];
    return true;
  }
  bool Hop(int hops, const std::string& name, Json& out) override {
    auto rows = Rows(hops == 1 ? "hop1" : "hop2", name);
    if (!rows || rows->size() != 1) return false;
    out = (*rows)[0]["n"];
    return true;
  }
  bool Top3(Json& out) override {
    auto rows = Rows("top3", "");
    if (!rows) return false;
    out = Json::array();
    // An integer key is reported as its decimal text, as the other systems' answers are.
    for (const Json& row : *rows) {
      const Json& key = row[std::string("b.") + keys_.property()];
      out.push_back(Pair(key.is_string() ? key : Json(key.dump()), row["n"]));
    }
    return true;
  }
  bool AgeGroups(Json& out) override {
    return Tuples("age_groups", {"p.age", "n", "first"}, "first", out);
  }
  bool KnowsByAge(Json& out) override { return Tuples("knows_by_age", {"b.age", "n"}, "", out); }
  bool Nearest(Json& out) override {
    std::mt19937_64 rng(7);
    Json q = Json::array();
    for (float x : UnitVector(rng)) q.push_back(static_cast<double>(x));
    Json params = Json::object();
    params["q"] = std::move(q);
    auto result = db_->Query(kDocQueries, "nearest", params);
    if (!result.ok()) {
      std::fprintf(stderr, "nearest: %s\n", result.status().ToString().c_str());
      return false;
    }
    out = Json::array();
    for (const Json& row : (*result)["rows"]) out.push_back(row["d.slug"]);
    return out.size() == 10;
  }
  Json StoreCalls() const override {
    const omnigraph::api::StoreCallCounts c = db_->StoreCalls();
    Json out = Json::object();
    out["gets"] = c.gets;
    out["heads"] = c.heads;
    out["lists"] = c.lists;
    out["bytes_read"] = c.bytes_read;
    out["rounds"] = c.rounds;
    return out;
  }

 private:
  std::unique_ptr<Json> Rows(const char* query, const std::string& name) {
    Json params = Json::object();
    if (!name.empty()) params["n"] = keys_.integer ? Json(std::stoll(name)) : Json(name);
    auto result = db_->Query(queries_, query, params);
    if (!result.ok()) {
      std::fprintf(stderr, "%s: %s\n", query, result.status().ToString().c_str());
      return nullptr;
    }
    return std::make_unique<Json>((*result)["rows"]);
  }
  // The rows of `query` (no parameters) as arrays of the `columns`' values; the `key` column (an
  // integer key) as its decimal text, as the other systems report it.
  bool Tuples(const char* query, std::initializer_list<const char*> columns, std::string_view key,
              Json& out) {
    auto rows = Rows(query, "");
    if (!rows) return false;
    out = Json::array();
    for (const Json& row : *rows) {
      Json tuple = Json::array();
      for (const char* c : columns) {
        const Json& v = row[c];
        tuple.push_back(c != key || v.is_string() ? v : Json(v.dump()));
      }
      out.push_back(std::move(tuple));
    }
    return true;
  }
  std::unique_ptr<Database> db_;
  Keys keys_;
  std::string queries_;
};

class Sqlite final : public System {
 public:
  Sqlite(sqlite3* db, const Keys& keys) : db_(db), keys_(keys) {}
  ~Sqlite() override {
    for (sqlite3_stmt* st : stmts_) sqlite3_finalize(st);
    sqlite3_close(db_);
  }
  bool Lookup(const std::string& name, Json& out) override { return Scalar(0, name, out); }
  bool Hop(int hops, const std::string& name, Json& out) override {
    return Scalar(hops, name, out);
  }
  bool Top3(Json& out) override {
    sqlite3_stmt* st = Stmt(3);
    if (st == nullptr) return false;
    out = Json::array();
    while (sqlite3_step(st) == SQLITE_ROW) {
      out.push_back(Pair(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))),
                         static_cast<int64_t>(sqlite3_column_int64(st, 1))));
    }
    return sqlite3_reset(st) == SQLITE_OK;
  }
  bool AgeGroups(Json& out) override { return Counts(4, true, out); }
  bool KnowsByAge(Json& out) override { return Counts(5, false, out); }

 private:
  // Statement 0 lookup, 1 hop1, 2 hop2, 3 top3, 4 age_groups, 5 knows_by_age; prepared on
  // first use.
  sqlite3_stmt* Stmt(int which) {
    static constexpr const char* kSql[] = {kSqlLookup, kSqlHop1,      kSqlHop2,
                                           kSqlTop3,   kSqlAgeGroups, kSqlKnowsByAge};
    if (stmts_[which] == nullptr &&
        sqlite3_prepare_v2(db_, kSql[which], -1, &stmts_[which], nullptr) != SQLITE_OK) {
      std::fprintf(stderr, "sqlite: %s\n", sqlite3_errmsg(db_));
    }
    return stmts_[which];
  }
  bool Scalar(int which, const std::string& name, Json& out) {
    sqlite3_stmt* st = Stmt(which);
    if (st == nullptr) return false;
    if (keys_.integer) {
      sqlite3_bind_int64(st, 1, std::stoll(name));
    } else {
      sqlite3_bind_text(st, 1, name.c_str(), -1, SQLITE_TRANSIENT);
    }
    const bool row = sqlite3_step(st) == SQLITE_ROW;
    if (row) out = Json(static_cast<int64_t>(sqlite3_column_int64(st, 0)));
    return sqlite3_reset(st) == SQLITE_OK && row;
  }
  // The rows of statement `which` as arrays [value, count] (and the third column's text, when
  // `first`).
  bool Counts(int which, bool first, Json& out) {
    sqlite3_stmt* st = Stmt(which);
    if (st == nullptr) return false;
    out = Json::array();
    while (sqlite3_step(st) == SQLITE_ROW) {
      Json tuple = Pair(static_cast<int64_t>(sqlite3_column_int64(st, 0)),
                        static_cast<int64_t>(sqlite3_column_int64(st, 1)));
      if (first) {
        tuple.push_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 2))));
      }
      out.push_back(std::move(tuple));
    }
    return sqlite3_reset(st) == SQLITE_OK;
  }
  sqlite3* db_;
  Keys keys_;
  sqlite3_stmt* stmts_[6] = {};
};

std::unique_ptr<System> OpenSystem(const std::string& dir, const std::string& system) {
  const Keys keys = KeysOf(dir);
  if (system == "omnigraph") {
    const char* uri = std::getenv("OMNIGRAPH_BENCH_GRAPH_URI");
    auto db = Database::Open(uri != nullptr ? std::string(uri) : "file://" + dir + "/graph");
    if (!db.ok()) return Fail(db.status().ToString()), nullptr;
    return std::make_unique<OmniGraph>(std::move(*db), keys);
  }
  sqlite3* sql = nullptr;
  if (system != "sqlite" || sqlite3_open_v2((dir + "/sqlite.db").c_str(), &sql,
                                            SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    return Fail("cannot open " + system + " in " + dir), nullptr;
  }
  return std::make_unique<Sqlite>(sql, keys);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// How many of the first timed 1-hop calls (each a start not queried before) make the "moderately
// warm" number: a process that has answered a few queries, not every start's adjacency.
constexpr int kFirstStarts = 20;

// Runs `one(i, answer)` for i in [0, n) after one untimed warm-up; the median ms (and the median
// of the first kFirstStarts calls in `first_ms`, when given), the answers in `answers`. False
// when a call fails.
template <typename F>
bool Timed(int n, F one, double& median_ms, Json& answers, double* first_ms = nullptr,
           double* max_ms = nullptr, double* total_ms = nullptr) {
  Json scratch;
  if (!one(0, scratch)) return false;
  std::vector<double> ms;
  answers = Json::array();
  for (int i = 0; i < n; ++i) {
    Json answer;
    const double t0 = NowMs();
    if (!one(i, answer)) return false;
    ms.push_back(NowMs() - t0);
    answers.push_back(std::move(answer));
  }
  median_ms = Median(ms);
  // What a median hides: the slowest call (a walk that builds a whole adjacency) and the total.
  if (max_ms != nullptr && !ms.empty()) *max_ms = *std::max_element(ms.begin(), ms.end());
  if (total_ms != nullptr) {
    *total_ms = 0;
    for (double m : ms) *total_ms += m;
  }
  if (first_ms != nullptr) {
    *first_ms =
        Median(std::vector<double>(ms.begin(), ms.begin() + std::min<int>(n, kFirstStarts)));
  }
  return true;
}

int Warm(const std::string& dir, uint64_t persons, const std::string& name) {
  const Keys keys = KeysOf(dir);
  auto system = OpenSystem(dir, name);
  if (system == nullptr) return 1;
  System& s = *system;
  Json out = Json::object(), answers = Json::object();
  out["system"] = name;
  double ms = 0;
  Json a;
  bool ok = Timed(
      kLookupStarts, [&](int i, Json& r) { return s.Lookup(Start(keys, i, persons), r); }, ms, a);
  out["lookup_ms"] = ms;
  answers["lookup"] = a;
  double first = 0, max = 0, total = 0;
  ok = ok && Timed(
                 kHop1Starts, [&](int i, Json& r) { return s.Hop(1, Start(keys, i, persons), r); },
                 ms, a, &first, &max, &total);
  out["hop1_ms"] = ms;
  out["hop1_first20_ms"] = first;
  out["hop1_max_ms"] = max;
  out["hop1_total_ms"] = total;
  answers["hop1"] = a;
  ok = ok && Timed(
                 kHop2Starts, [&](int i, Json& r) { return s.Hop(2, Start(keys, i, persons), r); },
                 ms, a, nullptr, &max, &total);
  out["hop2_ms"] = ms;
  out["hop2_max_ms"] = max;
  out["hop2_total_ms"] = total;
  answers["hop2"] = a;
  ok = ok && Timed(
                 kTop3Runs, [&](int, Json& r) { return s.Top3(r); }, ms, a);
  out["top3_ms"] = ms;
  answers["top3"] = a.empty() ? Json() : a[0];
  ok = ok && Timed(
                 kAgeGroupsRuns, [&](int, Json& r) { return s.AgeGroups(r); }, ms, a);
  out["age_groups_ms"] = ms;
  answers["age_groups"] = a.empty() ? Json() : a[0];
  ok = ok && Timed(
                 kKnowsByAgeRuns, [&](int, Json& r) { return s.KnowsByAge(r); }, ms, a);
  out["knows_by_age_ms"] = ms;
  answers["knows_by_age"] = a.empty() ? Json() : a[0];
  if (!ok) return Fail(name + ": a warm query failed");
  out["answers"] = std::move(answers);
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

// The moderately warm 1-hop alone, as Warm runs it (the lookups first, then one untimed start),
// with every one of the first kFirstStarts starts' times: what the median hides (a start that
// builds the whole adjacency) and a process short enough to profile.
int First(const std::string& dir, uint64_t persons, const std::string& name) {
  const Keys keys = KeysOf(dir);
  auto system = OpenSystem(dir, name);
  if (system == nullptr) return 1;
  System& s = *system;
  double ms = 0;
  Json a;
  bool ok = Timed(
      kLookupStarts, [&](int i, Json& r) { return s.Lookup(Start(keys, i, persons), r); }, ms, a);
  const Json before = s.StoreCalls();
  Json each = Json::array();
  ok = ok && Timed(
                 kFirstStarts,
                 [&](int i, Json& r) {
                   const double t0 = NowMs();
                   const bool hop = s.Hop(1, Start(keys, i, persons), r);
                   each.push_back(NowMs() - t0);
                   return hop;
                 },
                 ms, a);
  if (!ok) return Fail(name + ": a warm query failed");
  Json out = Json::object();
  out["system"] = name;
  out["hop1_first20_ms"] = ms;
  // The untimed warm-up start first, then the timed ones.
  out["hop1_each_ms"] = std::move(each);
  out["store_calls_before"] = before;
  out["store_calls_after"] = s.StoreCalls();
  out["answers"] = std::move(a);
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

int Fresh(const std::string& dir, const std::string& shape, const std::string& name) {
  const char* start_env = std::getenv("OMNIGRAPH_BENCH_START");
  const std::string start = KeysOf(dir).Person(start_env != nullptr ? std::stoull(start_env) : 1);
  const uint64_t faults0 = MinorFaults();
  const double t0 = NowMs();
  auto system = OpenSystem(dir, name);
  if (system == nullptr) return 1;
  Json answer;
  const bool ok = shape == "hop1"           ? system->Hop(1, start, answer)
                  : shape == "lookup"       ? system->Lookup(start, answer)
                  : shape == "nearest"      ? system->Nearest(answer)
                  : shape == "age_groups"   ? system->AgeGroups(answer)
                  : shape == "knows_by_age" ? system->KnowsByAge(answer)
                                            : system->Top3(answer);
  if (!ok) return Fail(name + " " + shape + " failed");
  const double ms = NowMs() - t0;
  const uint64_t faults = MinorFaults() - faults0;
  Json out = Json::object();
  out["system"] = name;
  out["shape"] = shape;
  out["ms"] = ms;
  out["minor_faults"] = faults;
  out["peak_rss_bytes"] = PeakRssBytes();
  out["answer"] = std::move(answer);
  out["store_calls"] = system->StoreCalls();
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  Keys keys;
  if (!a.empty() && a.back() == "--int-keys" && (a[0] == "gen" || a[0] == "setup")) {
    keys.integer = true;
    a.pop_back();
  }
  const auto seed = [&] { return a.size() > 4 ? std::stoull(a[4]) : 42; };
  if (a.size() >= 4 && a[0] == "gen")
    return Gen(a[1], std::stoull(a[2]), std::stoull(a[3]), seed(), keys);
  if (a.size() >= 3 && a[0] == "gen-docs") {
    return GenDocs(a[1], std::stoull(a[2]), a.size() > 3 ? std::stoull(a[3]) : 42);
  }
  if (a.size() == 2 && a[0] == "load") return Load(a[1]);
  if (a.size() >= 4 && a[0] == "setup") {
    const int rc = Gen(a[1], std::stoull(a[2]), std::stoull(a[3]), seed(), keys);
    return rc != 0 ? rc : Load(a[1]);
  }
  if (a.size() == 4 && a[0] == "warm") return Warm(a[1], std::stoull(a[2]), a[3]);
  if (a.size() == 4 && a[0] == "fresh") return Fresh(a[1], a[2], a[3]);
  if (a.size() == 4 && a[0] == "first") return First(a[1], std::stoull(a[2]), a[3]);
  std::fprintf(
      stderr,
      "usage: omnigraph-cold-bench gen DIR PERSONS KNOWS [SEED] [--int-keys] | gen-docs DIR "
      "DOCS [SEED] | load DIR | setup DIR PERSONS KNOWS [SEED] [--int-keys] | warm DIR PERSONS "
      "SYSTEM | first DIR PERSONS SYSTEM | fresh DIR "
      "SHAPE SYSTEM\n"
      "  SYSTEM: omnigraph | sqlite;  SHAPE: lookup | hop1 | top3 | age_groups | knows_by_age | "
      "nearest\n");
  return 2;
}

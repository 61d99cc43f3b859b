// What a fresh process pays for its first query (docs/format/indexes.md): a load stores each
// large table version's id index and an edge table's adjacency, and a reader that finds an
// index missing rebuilds it from the fragments and stores it, after which a cold query costs
// what it cost with the stored indexes. Built as an embedder builds, with include/ alone (see
// api_test.cc).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace omnigraph::api {
namespace {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> next{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = (std::filesystem::temp_directory_path() /
             ("omnigraph-cold-test-" + std::string(info->name()) + "-" + std::to_string(next++)))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32 }
edge Knows: Person -> Person
)";

constexpr std::string_view kQueries = R"(
query hop1($n: String) { match { $a: Person { name: $n }  $a knows $b } return { count($b) as n } }
query hop1_rows($n: String) {
  match { $a: Person { name: $n }  $a knows $b }
  return { $b.name, $b.age }
}
query hop1_names($n: String) {
  match { $a: Person { name: $n }  $a knows $b }
  return { $b.name }
}
)";

// Persons p[from, to) of n, as load lines.
std::string Persons(int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) {
    out += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) +
           "\",\"age\":" + std::to_string(i % 90) + "}}\n";
  }
  return out;
}

// For each person of [from, to), edges to the next three of n (mod n), as load lines.
std::string Edges(int n, int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) {
    for (int d = 1; d <= 3; ++d) {
      out += "{\"edge\":\"Knows\",\"from\":\"p" + std::to_string(i) + "\",\"to\":\"p" +
             std::to_string((i + d) % n) + "\"}\n";
    }
  }
  return out;
}

// The store calls of a fresh handle's open and first query of `name`.
StoreCallCounts ColdQuery(const std::string& uri, std::string_view name, Json* out) {
  Result<std::unique_ptr<Database>> db = Database::Open(uri);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  Result<Json> result = (*db)->Query(kQueries, name, Json{{"n", "p7"}});
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (result.ok()) *out = *result;
  return (*db)->StoreCalls();
}

// A graph of 2,400 persons and 7,200 edges (both above the 1,024 rows from which versions keep
// indexes), each table written by `loads` appends: one fragment per append.
std::string MakeGraph(const TempDir& dir, int loads) {
  constexpr int kPersons = 2400;
  const std::string uri = dir.path() + "/g" + std::to_string(loads);
  Result<std::unique_ptr<Database>> db = Database::Init(uri, kSchema);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  const int step = kPersons / loads;
  // Edges reference persons of later appends, so every person goes first.
  for (int l = 0; l < loads; ++l) {
    Result<Json> loaded = (*db)->Load(Persons(l * step, (l + 1) * step), "append", WriteTarget{});
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  for (int l = 0; l < loads; ++l) {
    Result<Json> loaded =
        (*db)->Load(Edges(kPersons, l * step, (l + 1) * step), "append", WriteTarget{});
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  return uri;
}

TEST(ColdReadTest, AMissingIndexIsRebuiltFromTheFragmentsAndWrittenBack) {
  TempDir dir;
  const std::string uri = MakeGraph(dir, 3);
  Json expected;
  const StoreCallCounts with_indexes = ColdQuery(uri, "hop1", &expected);
  std::vector<std::filesystem::path> derived;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(uri)) {
    if (entry.path().parent_path().filename() == "derived") derived.push_back(entry.path());
  }
  // Person versions of 1,600 and 2,400 rows keep ids (800 is below the threshold); the three
  // Knows versions keep ids and csr.out each.
  EXPECT_EQ(derived.size(), 8u);
  for (const auto& path : derived) std::filesystem::remove(path);
  Json rebuilt;
  const StoreCallCounts without = ColdQuery(uri, "hop1", &rebuilt);
  EXPECT_EQ(rebuilt["rows"], expected["rows"]);
  // The three indexes are looked for, built from the fragments and stored again.
  EXPECT_GT(without.gets, with_indexes.gets);
  EXPECT_EQ(without.put_if_absent, 3u);
  Json again;
  const StoreCallCounts after = ColdQuery(uri, "hop1", &again);
  EXPECT_EQ(after.total(), with_indexes.total());
  EXPECT_EQ(again["rows"], expected["rows"]);
}

// The store calls of `name`'s first query on a fresh handle, without the open's.
StoreCallCounts QueryOnly(const std::string& uri, std::string_view name, Json* out) {
  Result<std::unique_ptr<Database>> db = Database::Open(uri);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  const StoreCallCounts opened = (*db)->StoreCalls();
  Result<Json> result = (*db)->Query(kQueries, name, Json{{"n", "p7"}});
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (result.ok()) *out = *result;
  StoreCallCounts after = (*db)->StoreCalls();
  after.gets -= opened.gets;
  after.heads -= opened.heads;
  after.lists -= opened.lists;
  after.bytes_read -= opened.bytes_read;
  after.rounds -= opened.rounds;
  EXPECT_EQ(after.puts + after.put_if_absent + after.put_if_match + after.deletes,
            opened.puts + opened.put_if_absent + opened.put_if_match + opened.deletes);
  return after;
}

// A cold key lookup and one hop read, per touched table, its manifest and one index (`ids` of
// Person, `csr.out` of Knows): the key column is not re-read to check the row the key's id
// found, so the count does not grow with the fragments. Projecting the three neighbours' name
// and age reads only the fragment that holds them (p8, p9 and p10 were loaded together, in one
// small object read whole); projecting their names alone reads none, the key being the id. The
// first query also resolves the branch head, which reads the checkpoint and every commit record
// after it (docs/design/commit-record.md: bounded by the checkpoint interval; here the schema's
// commit and one per load), and the schema; main's stream and hint were read by the open, beside
// the stamp (decision 205).
TEST(ColdReadTest, AColdKeyLookupReadsOneIndexPerTableNotOnePerFragment) {
  TempDir dir;
  for (uint64_t loads : {1u, 4u}) {
    SCOPED_TRACE("loads " + std::to_string(loads));
    const std::string uri = MakeGraph(dir, static_cast<int>(loads));
    const uint64_t head_gets = 1 + (1 + 2 * loads);
    const uint64_t schema_gets = 1;
    const uint64_t index_gets = 2 + 2;
    Json count, rows;
    const StoreCallCounts c = QueryOnly(uri, "hop1", &count);
    EXPECT_EQ(count["rows"][0]["n"].get<int64_t>(), 3);
    EXPECT_EQ(c.gets, head_gets + schema_gets + index_gets);
    EXPECT_EQ(c.heads, 1u);
    EXPECT_EQ(c.lists, 0u);
    const StoreCallCounts r = QueryOnly(uri, "hop1_rows", &rows);
    ASSERT_EQ(rows["rows"].size(), 3u);
    EXPECT_EQ(rows["rows"][0]["b.name"].get<std::string>(), "p10");
    EXPECT_EQ(rows["rows"][0]["b.age"].get<int64_t>(), 10);
    EXPECT_EQ(rows["rows"][2]["b.name"].get<std::string>(), "p9");
    EXPECT_EQ(r.gets, head_gets + schema_gets + index_gets + 1);
    EXPECT_EQ(r.heads, 1u);
    EXPECT_EQ(r.lists, 0u);
    // Person's key is its nodes' ids: projecting it alone reads no fragment (decision 211).
    Json names;
    const StoreCallCounts k = QueryOnly(uri, "hop1_names", &names);
    ASSERT_EQ(names["rows"].size(), 3u);
    EXPECT_EQ(names["rows"][0]["b.name"].get<std::string>(), "p10");
    EXPECT_EQ(names["rows"][1]["b.name"].get<std::string>(), "p8");
    EXPECT_EQ(names["rows"][2]["b.name"].get<std::string>(), "p9");
    EXPECT_EQ(k.gets, head_gets + schema_gets + index_gets);
  }
}

// The GETs of a fresh handle's query `name` of `queries` (after its open), its rows in `out`.
uint64_t FreshGets(const std::string& uri, const std::string& queries, const char* name,
                   Json* out) {
  Result<std::unique_ptr<Database>> db = Database::Open(uri);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return 0;
  const StoreCallCounts opened = (*db)->StoreCalls();
  Result<Json> result = (*db)->Query(queries, name, Json::object());
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (result.ok()) *out = (*result)["rows"];
  return (*db)->StoreCalls().gets - opened.gets;
}

// A graph at `uri` of `schema` holding, per type of `types`, its keys (JSON texts: numbers, or
// strings in quotes) and the keys 1000..2099 ("k1000".. for a String key): enough rows beside the
// given ones that each version keeps an id index (1,024 rows). A row's label is "l" followed by
// its key's text.
void MakeKeyedGraph(const std::string& uri, const char* schema,
                    const std::vector<std::pair<std::string, std::vector<std::string>>>& types) {
  Result<std::unique_ptr<Database>> db = Database::Init(uri, schema);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  std::string lines;
  for (const auto& [type, keys] : types) {
    const bool text = !keys.empty() && keys[0].starts_with('"');
    std::vector<std::string> all = keys;
    for (int i = 1000; i < 2100; ++i) {
      all.push_back(text ? "\"k" + std::to_string(i) + "\"" : std::to_string(i));
    }
    for (const std::string& k : all) {
      const std::string bare = text ? k.substr(1, k.size() - 2) : k;
      lines +=
          "{\"type\":\"" + type + "\",\"data\":{\"k\":" + k + ",\"label\":\"l" + bare + "\"}}\n";
    }
  }
  Result<Json> loaded = (*db)->Load(lines, "overwrite", WriteTarget{});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
}

// An integer key is its nodes' ids too, in decimal: projected for a few rows it is read back from
// the id, as a String key is, with the value a column read gives (I64 and I32 signed, U32 and U64
// unsigned, negatives and the extremes included), and no fragment is read for it.
TEST(ColdReadTest, AnIntegerKeyProjectedForAFewRowsIsReadFromTheId) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  MakeKeyedGraph(uri, R"(
node Signed { k: I64 @key  label: String }
node Small { k: I32 @key  label: String }
node Unsigned { k: U64 @key  label: String }
node Tiny { k: U32 @key  label: String }
)",
                 {{"Signed", {"-9223372036854775808", "-5", "0", "9223372036854775807"}},
                  {"Small", {"-2147483648", "-5", "0", "2147483647"}},
                  {"Unsigned", {"0", "5", "9223372036854775808", "18446744073709551615"}},
                  {"Tiny", {"0", "5", "7", "4294967295"}}});
  for (const char* type : {"Signed", "Small", "Unsigned", "Tiny"}) {
    SCOPED_TRACE(type);
    // No order: sorting would read the whole key column first. Both scan in the same order.
    const std::string queries = std::string("query keys() { match { $x: ") + type +
                                " } return { $x.k } }\n" + "query both() { match { $x: " + type +
                                " } return { $x.k, $x.label } }\n";
    auto run = [&](const char* name, Json* out) { return FreshGets(uri, queries, name, out); };
    Json keys, both;
    // The first reader after the load also reads the commit its hint did not name yet.
    run("keys", &keys);
    const uint64_t key_gets = run("keys", &keys);
    const uint64_t both_gets = run("both", &both);
    ASSERT_EQ(keys.size(), 1104u);
    ASSERT_EQ(both.size(), 1104u);
    for (size_t i = 0; i < keys.size(); ++i) {
      // The same value, of the same JSON type, as the fragment read beside the label gives.
      EXPECT_EQ(keys[i]["x.k"], both[i]["x.k"]) << i;
      EXPECT_EQ(keys[i]["x.k"].dump(), both[i]["x.k"].dump()) << i;
      // Integers beyond 2^53 travel as JSON strings, on either path.
      const Json& k = keys[i]["x.k"];
      EXPECT_EQ(both[i]["x.label"].get<std::string>(),
                "l" + (k.is_string() ? k.get<std::string>() : k.dump()))
          << i;
    }
    // The label is read from the one fragment; the key alone reads none (the id index serves).
    EXPECT_EQ(both_gets, key_gets + 1);
  }
}

// A key read whole (to sort by it, or to aggregate over every row) is built from the ids: a
// String key always (it is its node's id), an integer key (its id's decimal text) once every id
// is read — before, its fragment is cheaper (decisions 223, 256). The order and the extremes are
// those of the values — numeric for integers, not the ids' text order — on either path.
TEST(ColdReadTest, AKeyReadWholeIsBuiltFromTheIdsWhenTheyAreRead) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  const std::vector<std::pair<std::string, std::vector<std::string>>> types = {
      {"Signed", {"-9223372036854775808", "-5", "0", "9223372036854775807"}},
      {"Small", {"-2147483648", "-5", "0", "2147483647"}},
      {"Unsigned", {"0", "5", "9223372036854775808", "18446744073709551615"}},
      {"Named", {"\"A\"", "\"Z\"", "\"a\"", "\"\u00e9\""}}};
  MakeKeyedGraph(uri, R"(
node Signed { k: I64 @key  label: String }
node Small { k: I32 @key  label: String }
node Unsigned { k: U64 @key  label: String }
node Named { k: String @key  label: String }
)",
                 types);
  for (const auto& [type, extremes] : types) {
    SCOPED_TRACE(type);
    const std::string queries =
        "query keys() { match { $x: " + type + " } return { $x.k } order { $x.k } limit 2 }\n" +
        "query both() { match { $x: " + type +
        " } return { $x.k, $x.label } order { $x.k } limit 2 }\n" +
        "query span() { match { $x: " + type +
        " } return { min($x.k) as lo, max($x.k) as hi, count($x) as n } }\n" +
        "query ids() { match { $x: " + type + " } return { min($x.@id) as i } }\n" +
        "query idkeys() { match { $x: " + type +
        " } return { min($x.@id) as i, min($x.k) as lo, max($x.k) as hi } }\n";
    auto run = [&](const char* name, Json* out) { return FreshGets(uri, queries, name, out); };
    Json keys, both, span;
    // The first reader after the load also reads the commit its hint did not name yet.
    run("keys", &keys);
    const uint64_t key_gets = run("keys", &keys);
    const uint64_t both_gets = run("both", &both);
    run("span", &span);
    Json ids, idkeys;
    const uint64_t id_gets = run("ids", &ids);
    const uint64_t idkey_gets = run("idkeys", &idkeys);
    // The smallest two values and the extremes, as JSON (integers past 2^53 as strings).
    const auto value = [](const std::string& text) {
      Result<Json> v = ParseJson(text, "expected");
      EXPECT_TRUE(v.ok()) << text;
      constexpr double kExact = 9007199254740992.0;  // 2^53
      if (v.ok() && v->is_number_integer() && std::abs(std::stod(text)) > kExact) return Json(text);
      return v.ok() ? *v : Json();
    };
    ASSERT_EQ(keys.size(), 2u);
    EXPECT_EQ(keys[0]["x.k"], value(extremes[0]));
    EXPECT_EQ(keys[1]["x.k"], value(extremes[1]));
    EXPECT_EQ(both[0]["x.k"], keys[0]["x.k"]);
    EXPECT_EQ(both[1]["x.k"], keys[1]["x.k"]);
    ASSERT_EQ(span.size(), 1u);
    EXPECT_EQ(span[0]["lo"], value(extremes[0]));
    EXPECT_EQ(span[0]["hi"], value(extremes[3]));
    EXPECT_EQ(span[0]["n"].get<int64_t>(), 1104);
    ASSERT_EQ(idkeys.size(), 1u);
    EXPECT_EQ(idkeys[0]["lo"], value(extremes[0]));
    EXPECT_EQ(idkeys[0]["hi"], value(extremes[3]));
    // Once every id is read, the key read whole costs nothing more, of any type.
    EXPECT_EQ(idkey_gets, id_gets);
    if (type == "Named") {
      // A String key read whole reads no fragment, even before the ids are: the label is then
      // the one fragment read.
      EXPECT_EQ(both_gets, key_gets + 1);
    } else {
      // An integer key is read from its fragment then (decision 256), which holds the label too.
      EXPECT_EQ(both_gets, key_gets);
    }
  }
}

// The derived objects under `uri`, by path, with their sizes.
std::map<std::string, uint64_t> DerivedFiles(const std::string& uri) {
  std::map<std::string, uint64_t> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(uri)) {
    if (entry.path().parent_path().filename() == "derived") {
      out[entry.path().string()] = std::filesystem::file_size(entry.path());
    }
  }
  return out;
}

// A graph of `persons` persons in a ring, each knowing the next four, loaded in one overwrite
// into `dir`/`name`: its URI, or empty (a failure reported) when it could not be made.
std::string LoadRing(const TempDir& dir, const std::string& name, int persons) {
  const std::string uri = dir.path() + "/" + name;
  Result<std::unique_ptr<Database>> db = Database::Init(uri, kSchema);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return "";
  std::string lines = Persons(0, persons);
  for (int i = 0; i < persons; ++i) {
    for (int d = 1; d <= 4; ++d) {
      lines += "{\"edge\":\"Knows\",\"from\":\"p" + std::to_string(i) + "\",\"to\":\"p" +
               std::to_string((i + d) % persons) + "\"}\n";
    }
  }
  Result<Json> loaded = (*db)->Load(lines, "overwrite", WriteTarget{});
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  return loaded.ok() ? uri : "";
}

// A load mints the ids of rows without a key as runs of ULIDs, each one greater than the one
// before, and the edge table's stored id index keeps such a run as one entry per block of 256
// (decision 260): 24,000 generated edge ids take under 0.3 bytes each, where front-coding them took
// about 3.2; the Person index of keys is unchanged.
TEST(ColdReadTest, ALoadsGeneratedEdgeIdsTakeUnderAThirdOfAByteEachInTheirIndex) {
  TempDir dir;
  constexpr int kPersons = 6'000;
  const std::string uri = LoadRing(dir, "ids", kPersons);
  ASSERT_FALSE(uri.empty());
  // The Knows table's derived folder is the one that holds an adjacency.
  std::string knows_dir;
  std::map<std::string, uint64_t> ids_bytes;  // By derived folder.
  for (const auto& [path, bytes] : DerivedFiles(uri)) {
    const std::string folder = std::filesystem::path(path).parent_path().string();
    if (path.ends_with(".csr.out")) knows_dir = folder;
    if (path.ends_with(".ids")) ids_bytes[folder] = bytes;
  }
  ASSERT_FALSE(knows_dir.empty());
  ASSERT_EQ(ids_bytes.size(), 2u);
  const uint64_t edges = 4 * kPersons;
  EXPECT_LT(ids_bytes[knows_dir] * 10, edges * 3) << ids_bytes[knows_dir];
  for (const auto& [folder, bytes] : ids_bytes) {
    if (folder != knows_dir) {
      EXPECT_GT(bytes, uint64_t{kPersons}) << "keys are not steps";
    }
  }
  // And the graph answers from it: a fresh process's 1-hop over the stored indexes.
  Json count;
  (void)QueryOnly(uri, "hop1", &count);
  EXPECT_EQ(count["rows"][0]["n"].get<int64_t>(), 4);
}

// A one-row load into tables with stored indexes writes one small delta per kind (Person's ids;
// Knows' ids and csr.out) instead of rebuilding them, and a fresh reader reads the chains: per
// table its manifest, the delta, the base's manifest and the base's full object — and for Knows
// also its id index's delta and base, which applying an adjacency delta needs.
TEST(ColdReadTest, AOneRowLoadWritesSmallDeltasThatAFreshReaderReadsAsChains) {
  TempDir dir;
  const std::string uri = MakeGraph(dir, 1);
  const std::map<std::string, uint64_t> before = DerivedFiles(uri);
  {
    Result<std::unique_ptr<Database>> db = Database::Open(uri);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    Result<Json> loaded =
        (*db)->Load(Persons(2400, 2401) + "{\"edge\":\"Knows\",\"from\":\"p7\",\"to\":\"p100\"}\n",
                    "append", WriteTarget{});
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  const std::map<std::string, uint64_t> after = DerivedFiles(uri);
  ASSERT_EQ(after.size(), before.size() + 3);
  for (const auto& [path, bytes] : after) {
    if (before.count(path) != 0) continue;
    EXPECT_LT(bytes, 512u) << path;
  }
  Json count;
  const StoreCallCounts c = QueryOnly(uri, "hop1", &count);
  EXPECT_EQ(count["rows"][0]["n"].get<int64_t>(), 4);
  const uint64_t head_gets = 1 + (1 + 2 * 1) + 1;
  const uint64_t schema_gets = 1;
  const uint64_t index_gets = 4 + 6;
  EXPECT_EQ(c.gets, head_gets + schema_gets + index_gets);
  EXPECT_EQ(c.heads, 1u);
  EXPECT_EQ(c.lists, 0u);
}

// A cold 1-hop from one node of a large edge table (at least 65,536 edges: below that a query
// reads the adjacency whole) reads a few ranges of the stored adjacency, not the object
// (docs/format/indexes.md "Reading a few keys (revisions 3 and 4)"): its first bytes (the table
// and the prefix with the fence and the block checksums), then two rounds — the node's fence
// window with the window's packed targets (four reads here: the key ends, the key ids, the
// offsets, the targets, each 4 KiB block more than 64 KiB from the next, so not read together;
// in revision 3's 16 KiB blocks the key ends and the key ids were one read; a count binds no
// edge, so the edge slots are not read, decision 225), then the targets' groups of ids with
// their end offsets (one read here; each round's ranges within 64 KiB of each other are one
// read) — six reads besides the edge table's manifest, in three rounds. Everything the query
// reads, the Person id index included, is less than the adjacency alone.
TEST(ColdReadTest, AColdOneHopOnALargeEdgeTableReadsAFewRangesOfTheAdjacency) {
  TempDir dir;
  // Four edges per person, to the next four: 68,000 edges.
  const std::string uri = LoadRing(dir, "large", 17'000);
  ASSERT_FALSE(uri.empty());
  uint64_t csr_bytes = 0;
  for (const auto& [path, bytes] : DerivedFiles(uri)) {
    if (path.ends_with(".csr.out")) csr_bytes = bytes;
  }
  ASSERT_GT(csr_bytes, 0u);
  Json count;
  const StoreCallCounts c = QueryOnly(uri, "hop1", &count);
  EXPECT_EQ(count["rows"][0]["n"].get<int64_t>(), 4);
  const uint64_t head_gets = 1 + (1 + 1);  // The schema's commit and the load's.
  const uint64_t schema_gets = 1;
  const uint64_t person_gets = 2;  // Its manifest and id index.
  const uint64_t knows_gets = 1 + 1 + 4 + 1;
  EXPECT_EQ(c.gets, head_gets + schema_gets + person_gets + knows_gets);
  EXPECT_EQ(c.heads, 1u);
  EXPECT_EQ(c.lists, 0u);
  EXPECT_LT(c.bytes_read, csr_bytes);
}

// An update of one node by its key finds the row by the id the key derives (the id index and
// the row's fragment), not by reading the whole table into memory: its reads do not grow with
// the table's fragments. A fresh handle's mutation also resolves the branch head (as above: the
// checkpoint and one record per commit) and reads the schema.
TEST(ColdReadTest, AnUpdateByKeyReadsItsRowByIdNotTheWholeTable) {
  TempDir dir;
  constexpr std::string_view kUpdates = R"(
query set_age($n: String, $age: I32) { update Person set { age: $age } where name = $n }
)";
  for (uint64_t loads : {1u, 4u}) {
    SCOPED_TRACE("loads " + std::to_string(loads));
    const std::string uri = MakeGraph(dir, static_cast<int>(loads));
    Result<std::unique_ptr<Database>> db = Database::Open(uri);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    const StoreCallCounts opened = (*db)->StoreCalls();
    Result<Json> updated =
        (*db)->Mutate(kUpdates, "set_age", Json{{"n", "p7"}, {"age", 77}}, WriteTarget{});
    ASSERT_TRUE(updated.ok()) << updated.status().ToString();
    EXPECT_EQ((*updated)["affected_nodes"].get<int64_t>(), 1);
    const StoreCallCounts after = (*db)->StoreCalls();
    const uint64_t head_gets = 1 + (1 + 2 * loads);
    // Past the head, the same whatever the fragments: the schema; Person's manifest, id index
    // and the fragment holding p7; and the write's own three (as a warm mutation's, engine.md
    // "Cost on a warm Graph"). A scan read every fragment: 3 more at 4 loads.
    EXPECT_EQ(after.gets - opened.gets, head_gets + 1 + 3 + 3);
    Result<Json> missing =
        (*db)->Mutate(kUpdates, "set_age", Json{{"n", "nobody"}, {"age", 1}}, WriteTarget{});
    ASSERT_TRUE(missing.ok()) << missing.status().ToString();
    EXPECT_EQ((*missing)["affected_nodes"].get<int64_t>(), 0);
    Result<Json> read = (*db)->Query(
        "query age($n: String) { match { $p: Person { name: $n } } return { $p.age } }", "age",
        Json{{"n", "p7"}});
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ((*read)["rows"][0]["p.age"].get<int64_t>(), 77);
  }
}

}  // namespace
}  // namespace omnigraph::api

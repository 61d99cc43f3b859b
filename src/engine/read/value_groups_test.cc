// Grouping by a property's values, column at a time (query/exec/aggregate_parts.h GroupByValue):
// its rows are exactly those of the grouping by entities then by key value (the path taken with
// RunOptions::value_grouping off), over generated tables with nulls, ties, overflowing and
// float sums, deleted rows and a branch's own writes, for scans, filtered scans and traversals;
// and ExecStats::value_grouped_rows says exactly when it ran (key_ids_read, when a min or max of
// the String key read one id per group instead of loading the key's column: decision 254).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/read/read_test_graph.h"

namespace omnigraph::engine {
namespace {

using schema::Value;
using Rows = std::vector<std::vector<Value>>;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32?  big: I64?  score: F64?  city: String?  born: Date?  units: U64?  flag: Bool? }
edge Knows: Person -> Person
)";

class ValueGroupsTest : public ReadGraphTest {
 protected:
  void SetUp() override { Reset(kSchema); }

  // The query's rows by value and by entities (which must agree), and how many rows the value
  // path grouped (and in ids_read_, how many ids it read for a min or max of the key).
  Rows Both(const std::string& body, uint64_t* grouped, const std::string& branch = "main") {
    const std::string source = "query q() { " + body + " }";
    RunOptions options;
    options.branch = branch;
    Result<query::QueryResult> fast = Run(source, options);
    options.value_grouping = false;
    Result<query::QueryResult> slow = Run(source, options);
    EXPECT_TRUE(fast.ok()) << body << ": " << fast.status().ToString();
    EXPECT_TRUE(slow.ok()) << body << ": " << slow.status().ToString();
    if (!fast.ok() || !slow.ok()) return {};
    EXPECT_EQ(fast->rows, slow->rows) << body;
    EXPECT_EQ(slow->stats.value_grouped_rows, 0u);
    EXPECT_EQ(slow->stats.key_ids_read, 0u);
    *grouped = fast->stats.value_grouped_rows;
    ids_read_ = fast->stats.key_ids_read;
    return fast->rows;
  }
  uint64_t ids_read_ = 0;
};

// Person values for the randomized test: few distinct values (many ties) or, in a wide round,
// values far apart (the hash instead of the table), with nulls, sums that leave the I64 range,
// negative zeros and U64 values past the I64 range.
std::optional<Value> Maybe(std::mt19937_64& rng, Value v) {
  if (rng() % 6 == 0) return Value::Null();
  return v;
}

ReadGraphTest::NodeRow RandomPerson(std::mt19937_64& rng, const std::string& name, bool wide) {
  const int64_t i64_max = std::numeric_limits<int64_t>::max();
  const int64_t age = wide ? static_cast<int64_t>(rng() % 2000001) * 1000 - 1000000000
                           : static_cast<int64_t>(rng() % 5) - 1;
  const int64_t big = rng() % 4 == 0   ? i64_max - static_cast<int64_t>(rng() % 3)
                      : rng() % 4 == 0 ? -i64_max + static_cast<int64_t>(rng() % 3)
                                       : static_cast<int64_t>(rng() % 7) - 3;
  static const double kScores[] = {0.0, -0.0, 0.1, 0.2, 1e16, -1e16, 3.5};
  // Short ones, and ones that share their first 8 bytes or differ in a byte above 0x7f (min and
  // max of strings compare an 8-byte prefix first, decision 247).
  static const char* const kCities[] = {"",
                                        "a",
                                        "ab",
                                        "b",
                                        "Zu",
                                        "abcdefgh",
                                        "abcdefghij",
                                        "abcdefgi",
                                        "abcdefg",
                                        "abcdefg\u00e9",
                                        "\u00e9t\u00e9",
                                        "abcdefgh\u00e9"};
  const uint64_t units =
      rng() % 3 == 0 ? std::numeric_limits<uint64_t>::max() - rng() % 2 : rng() % 4;
  return {name,
          {Value::String(name), Maybe(rng, Value::Int(age)), Maybe(rng, Value::Int(big)),
           Maybe(rng, Value::Float(kScores[rng() % 7])),
           Maybe(rng, Value::String(kCities[rng() % std::size(kCities)])),
           Maybe(rng, Value::Date(static_cast<int32_t>(rng() % 4) - 2)),
           Maybe(rng, Value::UInt(units)), Maybe(rng, Value::Bool(rng() % 2 == 0))}};
}

// The group keys and aggregates the randomized test combines.
const char* const kKeys[] = {"age", "big", "city", "born", "units", "flag"};
const char* const kAggregates[] = {
    "count($V.age) as c",  "sum($V.age) as s",    "avg($V.big) as m",   "sum($V.big) as t",
    "min($V.city) as lo",  "max($V.born) as hi",  "sum($V.score) as f", "max($V.score) as fm",
    "avg($V.units) as u",  "min($V.units) as ul", "max($V.age) as am",  "min($V.name) as first",
    "max($V.name) as last"};
// Matches binding $v (the group's variable) and $w (the aggregates' variable).
struct Match {
  const char* text;
  const char* v;
  const char* w;
};
const Match kMatches[] = {
    {"$p: Person", "p", "p"},
    {"$p: Person  $p.age > 0 or $p.age is null", "p", "p"},
    {"$a: Person  $a knows $b", "b", "a"},
    {"$a: Person  $a $k:knows $b", "b", "a"},
    {"$a: Person  $a knows $b", "b", "b"},
};

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// One random query body: a match, a key, one to three aggregates, maybe an order and a limit.
std::string RandomBody(std::mt19937_64& rng) {
  const Match& m = kMatches[rng() % std::size(kMatches)];
  const std::string key = std::string("$") + m.v + "." + kKeys[rng() % std::size(kKeys)];
  std::string ret = key + ", count($" + m.w + ") as n";
  // Up to three distinct aggregates (an alias once).
  std::vector<size_t> picks(std::size(kAggregates));
  for (size_t i = 0; i < picks.size(); ++i) picks[i] = i;
  std::shuffle(picks.begin(), picks.end(), rng);
  for (size_t k = 0, n = rng() % 4; k < n; ++k) {
    ret += ", " + Replace(kAggregates[picks[k]], "$V", std::string("$") + m.w);
  }
  std::string body = std::string("match { ") + m.text + " } return { " + ret + " }";
  switch (rng() % 4) {
    case 0: break;
    case 1: body += " order { n desc, " + key + " }"; break;
    case 2: body += " order { n }"; break;
    default: body += " order { " + key + " desc }"; break;
  }
  if (rng() % 2 == 0) body += " limit " + std::to_string(rng() % 5);
  return body;
}

TEST_F(ValueGroupsTest, RowsEqualTheGroupingByEntitiesOverGeneratedGraphs) {
  std::mt19937_64 rng(216);
  uint64_t ran = 0, fell_back = 0;
  for (int round = 0; round < 24; ++round) {
    SetUp();
    const bool wide = round % 3 == 2;
    const int persons = round == 0 ? 0 : 1 + static_cast<int>(rng() % 40);
    std::vector<std::string> names;
    // Several appends (so several fragments).
    std::vector<NodeRow> batch;
    for (int i = 0; i < persons; ++i) {
      names.push_back("p" + std::to_string(rng() % 100) + "_" + std::to_string(i));
      batch.push_back(RandomPerson(rng, names.back(), wide));
      if (rng() % 12 == 0 || i + 1 == persons) {
        AddNodes("Person", batch);
        batch.clear();
      }
    }
    // Deletes leave deltas; a node with edges cannot be deleted, so they go before the edges,
    // and the last person (the branch deletes it) gets none.
    if (persons > 3 && rng() % 2 == 0) {
      DeleteNodes("Person", {names[0], names[persons / 2]});
      names.erase(names.begin() + persons / 2);
      names.erase(names.begin());
    }
    std::string spare;
    if (names.size() > 1) {
      spare = names.back();
      names.pop_back();
    }
    std::vector<std::pair<std::string, std::string>> knows;
    for (int e = 0; !names.empty() && e < persons * 2; ++e) {
      knows.emplace_back(names[rng() % names.size()], names[rng() % names.size()]);
      if (rng() % 6 == 0) knows.push_back(knows.back());  // A parallel edge.
    }
    if (!knows.empty()) AddEdges("Knows", knows);
    // Half the rounds also read a branch with writes of its own over main's.
    std::string branch = "main";
    if (!spare.empty() && round % 2 == 1) {
      ASSERT_TRUE(graph_->CreateBranch("dev", "main").ok());
      branch = "dev";
      AddNodes("Person", {RandomPerson(rng, "dev_" + std::to_string(round), wide)}, branch);
      DeleteNodes("Person", {spare}, branch);
    }
    for (int q = 0; q < 40; ++q) {
      const std::string body = RandomBody(rng);
      uint64_t grouped = 0;
      Both(body, &grouped, branch);
      (grouped > 0 ? ran : fell_back) += 1;
      if (HasFatalFailure()) return;
    }
  }
  // Both paths were compared many times each (fell_back: empty tables, float sums over
  // traversals, sums that may overflow in some order, keys that are entities' own).
  EXPECT_GT(ran, 500u);
  EXPECT_GT(fell_back, 50u);
}

// Ages 30 (x3), 40 (x2), null (x2) and 50: the exact groups, nulls as a group, ties broken by
// the group order (the smallest person id among a group's rows), and the counter.
TEST_F(ValueGroupsTest, ExactGroupsOverATable) {
  const std::vector<std::pair<std::string, std::optional<int>>> people = {
      {"a", 40}, {"b", 30}, {"c", std::nullopt}, {"d", 30},
      {"e", 50}, {"f", 40}, {"g", 30},           {"h", std::nullopt}};
  std::vector<NodeRow> rows;
  for (const auto& [name, age] : people) {
    rows.push_back(NodeRow{name, {Value::String(name), age ? Value::Int(*age) : Value::Null()}});
  }
  AddNodes("Person", rows);
  uint64_t grouped = 0;
  const Rows counts = Both(
      "match { $p: Person } return { $p.age, count($p) as n, min($p.name) as first, "
      "sum($p.age) as s } order { n desc, $p.age } limit 3",
      &grouped);
  EXPECT_EQ(grouped, 8u);
  EXPECT_EQ(ids_read_, 4u) << "min($p.name): one id for each of the four groups";
  EXPECT_EQ(counts, (Rows{{Value::Int(30), Value::Int(3), Value::String("b"), Value::Float(90)},
                          {Value::Null(), Value::Int(2), Value::String("c"), Value::Null()},
                          {Value::Int(40), Value::Int(2), Value::String("a"), Value::Float(80)}}));
  // Without an order: the group order (a's group, then b's, c's, e's).
  const Rows plain = Both("match { $p: Person } return { $p.age, count($p.age) as n }", &grouped);
  EXPECT_EQ(grouped, 8u);
  EXPECT_EQ(plain, (Rows{{Value::Int(40), Value::Int(2)},
                         {Value::Int(30), Value::Int(3)},
                         {Value::Null(), Value::Int(0)},
                         {Value::Int(50), Value::Int(1)}}));
  // A limit past the groups, ascending, and a delete.
  DeleteNodes("Person", {"e", "c"});
  const Rows asc = Both(
      "match { $p: Person } return { $p.age, count($p) as n, max($p.name) as last } order { n, "
      "$p.age desc } limit 10",
      &grouped);
  EXPECT_EQ(grouped, 6u);
  EXPECT_EQ(ids_read_, 3u) << "max($p.name): one id for each of the three groups";
  EXPECT_EQ(asc, (Rows{{Value::Null(), Value::Int(1), Value::String("h")},
                       {Value::Int(40), Value::Int(2), Value::String("f")},
                       {Value::Int(30), Value::Int(3), Value::String("g")}}));
}

// The columns a grouping reads whole are read in one id-order scan (decision 256): the key's,
// the arguments' (an integer key's too, before any id is read) — but a count of the entity and a
// min of the String key read none.
TEST_F(ValueGroupsTest, AGroupingReadsItsColumnsInOneScan) {
  std::vector<NodeRow> rows;
  for (int i = 0; i < 40; ++i) {
    rows.push_back(NodeRow{"p" + std::to_string(i),
                           {Value::String("p" + std::to_string(i)),
                            Value::Int(i % 7),
                            Value::Int(i * 1000),
                            {},
                            {},
                            {},
                            Value::Int(i % 3)}});
  }
  AddNodes("Person", rows);
  const std::string body =
      "match { $p: Person } return { $p.age, count($p) as n, min($p.name) as first, sum($p.big) "
      "as s, max($p.units) as u } order { n desc, $p.age } limit 2";
  uint64_t grouped = 0;
  cache_ = std::make_unique<query::ExecCache>();
  Result<query::QueryResult> cold = Run("query q() { " + body + " }");
  ASSERT_TRUE(cold.ok()) << cold.status().ToString();
  EXPECT_EQ(cold->stats.column_scans, 1u) << "age, big and units together";
  EXPECT_EQ(cold->stats.key_ids_read, 7u) << "min($p.name): one id for each of the seven groups";
  // Warm, nothing is read again; the rows are the entity path's.
  const Rows warm = Both(body, &grouped);
  EXPECT_EQ(warm, cold->rows);
  EXPECT_EQ(grouped, 40u);
  // Ages 0..6: 0 to 5 have six rows each (i % 7 over 0..39), 6 has five.
  EXPECT_EQ(warm, (Rows{{Value::Int(0), Value::Int(6), Value::String("p0"), Value::Float(105000),
                         Value::Int(2)},
                        {Value::Int(1), Value::Int(6), Value::String("p1"), Value::Float(111000),
                         Value::Int(2)}}));
}

// A grouping of more rows than kFusedSplitRows (65,536) adds the two halves of its rows as two
// tasks (decision 258; here on a pool of two threads, as in a process) and merges their
// totals: its rows equal the entity path's and a count and min computed here, nulls in the key
// and in the argument included.
TEST_F(ValueGroupsTest, ALargeGroupingSplitOverTwoThreadsEqualsTheEntityPath) {
  Reset(kSchema, std::make_shared<ThreadPool>(2));
  std::mt19937_64 rng(258);
  constexpr int kPersons = 70000;
  std::vector<NodeRow> rows;
  std::map<std::optional<int64_t>, std::pair<int64_t, std::optional<int64_t>>> expected;
  for (int i = 0; i < kPersons; ++i) {
    const std::optional<int64_t> age =
        rng() % 50 == 0 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(rng() % 90));
    const std::optional<int64_t> big =
        rng() % 10 == 0 ? std::nullopt
                        : std::optional<int64_t>(static_cast<int64_t>(rng() % 2000000) - 1000000);
    rows.push_back(
        NodeRow{"p" + std::to_string(i),
                {Value::String("p" + std::to_string(i)), age ? Value::Int(*age) : Value::Null(),
                 big ? Value::Int(*big) : Value::Null()}});
    auto& [count, lo] = expected[age];
    ++count;
    if (big && (!lo || *big < *lo)) lo = big;
  }
  AddNodes("Person", rows);
  uint64_t grouped = 0;
  const Rows lows = Both(
      "match { $p: Person } return { $p.age, count($p) as n, min($p.big) as lo } order { $p.age }",
      &grouped);
  EXPECT_EQ(grouped, static_cast<uint64_t>(kPersons));
  ASSERT_EQ(lows.size(), expected.size());
  // Ascending ages, the null group first (the order's rule for nulls, as std::map's).
  size_t i = 0;
  for (const auto& [age, totals] : expected) {
    EXPECT_EQ(lows[i],
              (std::vector<Value>{age ? Value::Int(*age) : Value::Null(), Value::Int(totals.first),
                                  totals.second ? Value::Int(*totals.second) : Value::Null()}))
        << i;
    ++i;
  }
  // Without an order, the groups come in the order of their first rows; max and count(prop).
  Both("match { $p: Person } return { $p.age, max($p.big) as hi, count($p.name) as n }", &grouped);
  EXPECT_EQ(grouped, static_cast<uint64_t>(kPersons));
}

// Over a traversal the value path runs for order-free aggregates and leaves float sums to the
// entity path (whose additions follow the entities' order).
TEST_F(ValueGroupsTest, TraversalsGroupByTheTargetsValues) {
  AddNodes("Person", {{"a", {Value::String("a"), Value::Int(1), {}, Value::Float(0.5)}},
                      {"b", {Value::String("b"), Value::Int(2), {}, Value::Float(0.25)}},
                      {"c", {Value::String("c"), Value::Int(1), {}, Value::Float(1)}}});
  AddEdges("Knows", {{"a", "b"}, {"b", "a"}, {"c", "a"}, {"a", "c"}, {"c", "b"}});
  uint64_t grouped = 0;
  const Rows ages = Both(
      "match { $a: Person  $a knows $b } return { $b.age, count($a) as n, sum($a.age) as s } "
      "order { n desc }",
      &grouped);
  EXPECT_EQ(grouped, 5u);
  EXPECT_EQ(ages, (Rows{{Value::Int(1), Value::Int(3), Value::Float(4)},
                        {Value::Int(2), Value::Int(2), Value::Float(2)}}));
  const Rows floats =
      Both("match { $a: Person  $a knows $b } return { $b.age, sum($a.score) as s }", &grouped);
  EXPECT_EQ(grouped, 0u);
  EXPECT_EQ(floats, (Rows{{Value::Int(1), Value::Float(0.25 + 0.5 + 1)},
                          {Value::Int(2), Value::Float(0.5 + 1)}}));
  // A min of the targets' key: the rows do not ascend (a reaches b and c, c reaches a and b),
  // so the key's column is loaded and read as any String column's.
  const Rows names = Both(
      "match { $a: Person  $a knows $b } return { $b.age, min($b.name) as lo, max($b.name) as hi }",
      &grouped);
  EXPECT_EQ(grouped, 5u);
  EXPECT_EQ(ids_read_, 0u);
  EXPECT_EQ(names, (Rows{{Value::Int(1), Value::String("a"), Value::String("c")},
                         {Value::Int(2), Value::String("b"), Value::String("b")}}));
}

}  // namespace
}  // namespace omnigraph::engine

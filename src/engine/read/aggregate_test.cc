// Grouped aggregates ordered by an aggregate with a limit (query/plan/plan.h AggregateStep::top):
// the top-k path keeps only the candidates of the first k groups and evaluates only their keys,
// and its rows are exactly the first k rows of the same query without a limit (which takes the
// path over every group), over generated graphs with many ties, parallel edges, self-loops and
// null arguments. The golden files tests/lang/*.qtest cover the plan text and small cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/read/read_test_graph.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person
)";

class TopGroupsTest : public ReadGraphTest {
 protected:
  void SetUp() override { Reset(kSchema); }

  // Appends persons (name, age or null) in one write.
  void AddPersons(const std::vector<std::pair<std::string, std::optional<int>>>& people) {
    std::vector<NodeRow> rows;
    for (const auto& [name, age] : people) {
      rows.push_back(NodeRow{
          name,
          {schema::Value::String(name), age ? schema::Value::Int(*age) : schema::Value::Null()}});
    }
    AddNodes("Person", rows);
  }

  void AddKnows(const std::vector<std::pair<std::string, std::string>>& pairs) {
    AddEdges("Knows", pairs);
  }
};

// The shapes compared: fused counts from the adjacency, counts and other aggregates over frame
// rows, keys by @key, by id and by the whole entity, ascending and descending, ties broken by a
// key column or by the group order alone, and keys that merge groups (no top-k).
const std::vector<std::string>& Shapes() {
  static const std::vector<std::string> shapes = {
      "match { $a: Person  $a knows $b } return { $b.name, count($a) as n } order { n desc, "
      "$b.name }",
      "match { $a: Person  $a knows $b } return { $b.name, count($a) as n } order { n desc }",
      "match { $a: Person  $a knows $b } return { $b.name, count($a) as n } order { n, $b.name "
      "desc }",
      "match { $a: Person  $a knows $b } return { $b.@id, $b.age, count($a) as n } order { n "
      "desc, $b.age desc }",
      "match { $a: Person  $a $k:knows $b } return { $b.name, count($k.@id) as n, sum($a.age) "
      "as s, min($a.age) as lo, max($a.age) as hi, avg($a.age) as m } order { s desc, n }",
      "match { $a: Person  $a $k:knows $b } return { $b, min($a.age) as lo } order { lo desc }",
      "match { $a: Person  $a $k:knows $b } return { $a.name, $b.name, count($k.@id) as n, "
      "max($b.age) as hi } order { n desc, hi desc }",
      "match { $a: Person  $a knows $b } return { $b.age, count($a) as n } order { n desc }",
      "match { $p: Person } return { $p.name, count($p.age) as n } order { n desc }",
  };
  return shapes;
}

TEST_F(TopGroupsTest, TheFirstKGroupsAreTheFirstKRowsOfEveryGroup) {
  std::mt19937_64 rng(36);
  for (int round = 0; round < 4; ++round) {
    SetUp();
    const int persons = 8 + static_cast<int>(rng() % 24);
    std::vector<std::pair<std::string, std::optional<int>>> people;
    for (int i = 0; i < persons; ++i) {
      // Few distinct ages and some nulls: many ties in every aggregate.
      std::optional<int> age;
      if (rng() % 5 != 0) age = static_cast<int>(rng() % 4);
      people.emplace_back("p" + std::to_string(rng() % 1000) + "_" + std::to_string(i), age);
    }
    AddPersons(people);
    std::vector<std::pair<std::string, std::string>> knows;
    const int edges = persons * static_cast<int>(1 + rng() % 3);
    for (int e = 0; e < edges; ++e) {
      const std::string& from = people[rng() % people.size()].first;
      const std::string& to = people[rng() % people.size()].first;
      knows.emplace_back(from, to);
      if (rng() % 8 == 0) knows.emplace_back(from, to);  // A parallel edge.
    }
    AddKnows(knows);
    for (const std::string& shape : Shapes()) {
      Result<query::QueryResult> all = Run("query q() { " + shape + " }");
      ASSERT_TRUE(all.ok()) << shape << ": " << all.status().ToString();
      for (size_t k :
           {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{5}, all->rows.size() + 2}) {
        Result<query::QueryResult> top =
            Run("query q() { " + shape + " limit " + std::to_string(k) + " }");
        ASSERT_TRUE(top.ok()) << shape << ": " << top.status().ToString();
        const size_t n = std::min(k, all->rows.size());
        const std::vector<std::vector<schema::Value>> first(all->rows.begin(),
                                                            all->rows.begin() + n);
        EXPECT_EQ(top->rows, first) << "round " << round << ", limit " << k << ": " << shape;
      }
    }
  }
}

// In-degrees (distinct followers): d 4, c 3, then a, b, e and f tied at 1 — and g followed by
// no one. With `limit 3` the candidates are d, c and the four tied at 1: six groups get keys,
// not seven, and the rows are an exact oracle's.
TEST_F(TopGroupsTest, OnlyTheCandidatesGetTheirKeysEvaluated) {
  AddPersons({{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}, {"f", 6}, {"g", 7}});
  AddKnows({{"a", "d"},
            {"b", "d"},
            {"c", "d"},
            {"e", "d"},
            {"e", "d"},
            {"a", "c"},
            {"b", "c"},
            {"d", "c"},
            {"g", "a"},
            {"g", "b"},
            {"g", "e"},
            {"f", "f"}});
  const std::string order = " order { n desc, $b.name desc }";
  const std::string query =
      "query q() { match { $a: Person  $a knows $b } return { $b.name, count($a) as n }" + order;
  Result<query::QueryResult> all = Run(query + " }");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->rows.size(), 6u);
  EXPECT_EQ(all->stats.group_keys_evaluated, 6u);
  Result<query::QueryResult> top = Run(query + " limit 3 }");
  ASSERT_TRUE(top.ok()) << top.status().ToString();
  using schema::Value;
  const std::vector<std::vector<Value>> expected = {{Value::String("d"), Value::Int(4)},
                                                    {Value::String("c"), Value::Int(3)},
                                                    {Value::String("f"), Value::Int(1)}};
  EXPECT_EQ(top->rows, expected);
  EXPECT_EQ(top->stats.group_keys_evaluated, 6u);
  Result<query::QueryResult> two = Run(query + " limit 2 }");
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->stats.group_keys_evaluated, 2u);
  EXPECT_EQ(two->rows.size(), 2u);
  // A key that may merge groups (age) evaluates every group's keys.
  Result<query::QueryResult> merged =
      Run("query q() { match { $a: Person  $a knows $b } return { $b.age, count($a) as n } order "
          "{ n desc } limit 2 }");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  // It groups the counts from the adjacency by the age values instead, column at a time: the
  // six followed persons; by entities, every group's keys are evaluated.
  EXPECT_EQ(merged->stats.group_keys_evaluated, 0u);
  EXPECT_EQ(merged->stats.value_grouped_rows, 6u);
  RunOptions by_entities;
  by_entities.value_grouping = false;
  Result<query::QueryResult> merged_by_entities =
      Run("query q() { match { $a: Person  $a knows $b } return { $b.age, count($a) as n } order "
          "{ n desc } limit 2 }",
          by_entities);
  ASSERT_TRUE(merged_by_entities.ok()) << merged_by_entities.status().ToString();
  EXPECT_EQ(merged_by_entities->stats.group_keys_evaluated, 6u);
  EXPECT_EQ(merged_by_entities->stats.value_grouped_rows, 0u);
  EXPECT_EQ(merged_by_entities->rows, merged->rows);
  // Over frame rows too: the sum of the ages over the edges into each, best 1 = d alone (1 + 2 +
  // 3 + 5 + 5: the parallel edge is a row of its own).
  Result<query::QueryResult> sums =
      Run("query q() { match { $a: Person  $a $k:knows $b } return { $b.name, sum($a.age) as s } "
          "order { s desc } limit 1 }");
  ASSERT_TRUE(sums.ok()) << sums.status().ToString();
  EXPECT_EQ(sums->rows, (std::vector<std::vector<Value>>{{Value::String("d"), Value::Float(16)}}));
  EXPECT_EQ(sums->stats.group_keys_evaluated, 1u);
}

}  // namespace
}  // namespace omnigraph::engine

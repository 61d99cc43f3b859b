// Write validation (docs/design/engine.md "Validation"): every constraint refuses a bad write with
// OmniGraph's message, names the row, and leaves no record and no visible change.
#include "engine/write/validate.h"

#include <gtest/gtest.h>

#include "query/exec/column_codec.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

using schema::Value;
using Props = std::map<std::string, Value>;

constexpr std::string_view kSchema = R"(
node Person {
  name: String @key
  age: I32?
  score: F64?
  email: String? @unique
  kind: enum(admin, user)?
  @range(age, 0..150) @range(score, ..1.5) @check(email, "@")
}
node Company { name: String @key }
node Note { text: String }
edge WorksAt: Person -> Company @card(0..1) { role: String? }
edge Knows: Person -> Person @card(2..) { }
edge Mentions: Note -> Person { @unique(src, dst) }
edge Leads: Person -> Company @card(1..) { }
)";

// Run with the default sort budget (everything in memory, hash probes) and with a 64-byte one,
// under which every sort spills runs to temporary files and every join merges sorted runs.
class ValidateTest : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    counting_ = std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
    Result<std::unique_ptr<Graph>> g =
        Graph::Init(storage::Runtime::ForTest(counting_, 2), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    Result<Snapshot> head = graph_->SnapshotOfBranch("main");
    ASSERT_TRUE(head.ok());
    snapshot_ = std::make_unique<Snapshot>(std::move(*head));
  }

  const schema::TypeDef& Type(std::string_view key) {
    return *snapshot_->catalog().FindByTableKey(key);
  }

  // A batch of `key` rows: (id, src, dst, properties by name).
  struct Row {
    std::string id, src, dst;
    Props props;
  };
  table::ColumnBatch Rows(std::string_view key, const std::vector<Row>& rows) {
    const schema::TypeDef& type = Type(key);
    Result<query::RowsBuilder> b = query::RowsBuilder::Make(type);
    OMNIGRAPH_CHECK(b.ok());
    for (const Row& r : rows) {
      std::vector<std::optional<Value>> values(type.properties.size());
      for (size_t i = 0; i < values.size(); ++i) {
        auto it = r.props.find(type.properties[i].name);
        if (it != r.props.end()) values[i] = it->second;
      }
      Status s = b->Append(r.id, r.src, r.dst, values);
      OMNIGRAPH_CHECK_MSG(s.ok(), s.ToString());
    }
    Result<table::ColumnBatch> batch = b->Finish();
    OMNIGRAPH_CHECK(batch.ok());
    return std::move(*batch);
  }
  static Row Person(const std::string& name, Props p = {}) {
    p["name"] = Value::String(name);
    return Row{name, "", "", std::move(p)};
  }
  static Row Edge(const std::string& id, const std::string& src, const std::string& dst) {
    return Row{id, src, dst, {}};
  }

  // TableChange is move-only; brace lists copy, so the lists below hold shared handles.
  struct Ch {
    std::shared_ptr<TableChange> c;
  };
  using ChangeList = std::vector<std::pair<std::string, Ch>>;
  static Ch Change(TableChange::Op op, table::ColumnBatch rows) {
    Ch out{std::make_shared<TableChange>()};
    out.c->op = op;
    out.c->rows = std::move(rows);
    return out;
  }
  static Ch Delete(std::vector<std::string> ids) {
    Ch out{std::make_shared<TableChange>()};
    out.c->op = TableChange::Op::kDelete;
    out.c->ids = std::move(ids);
    return out;
  }

  Result<WriteResult> Write(const ChangeList& changes, RowLabel label = {}) {
    WriteRequest request;
    for (const auto& [key, ch] : changes) request.changes.emplace(key, std::move(*ch.c));
    request.row_label = std::move(label);
    request.sort_bytes = GetParam();
    return engine::Write(*graph_, request);
  }

  void MustWrite(const ChangeList& changes) {
    Result<WriteResult> r = Write(changes);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // The write fails with exactly `message`, publishes no record and changes no table.
  void ExpectRejected(const ChangeList& changes, const std::string& message) {
    Result<Snapshot> before = graph_->SnapshotOfBranch("main");
    ASSERT_TRUE(before.ok());
    const storage::OpCounts c0 = counting_->Snapshot();
    Result<WriteResult> r = Write(changes);
    ASSERT_FALSE(r.ok()) << "expected: " << message;
    EXPECT_EQ(r.status().kind(), Kind::kInvalidArgument) << r.status().ToString();
    EXPECT_EQ(r.status().message(), message);
    const storage::OpCounts c1 = counting_->Snapshot();
    EXPECT_EQ(c1.put_if_absent, c0.put_if_absent) << "validation must come before any write";
    EXPECT_EQ(c1.puts, c0.puts);
    Result<Snapshot> after = graph_->SnapshotOfBranch("main");
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->commit_id(), before->commit_id());
  }

  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
  std::unique_ptr<Snapshot> snapshot_;
};

TEST_P(ValidateTest, ValidRowsPass) {
  MustWrite({{"node:Person",
              Change(TableChange::Op::kAppend,
                     Rows("node:Person", {Person("ada", {{"age", Value::Int(36)},
                                                         {"email", Value::String("a@x")},
                                                         {"kind", Value::String("admin")}}),
                                          Person("bob", {{"age", Value::Int(150)}})}))}});
}

TEST_P(ValidateTest, EnumValuesOutsideTheSetAreRejected) {
  ExpectRejected(
      {{"node:Person",
        Change(
            TableChange::Op::kAppend,
            Rows("node:Person", {Person("ada"), Person("x", {{"kind", Value::String("root")}})}))}},
      "node:Person row 1: invalid enum value 'root' for Person.kind (expected: admin, user)");
}

TEST_P(ValidateTest, RangeIsInclusiveAndNamesTheBound) {
  ExpectRejected(
      {{"node:Person", Change(TableChange::Op::kAppend,
                              Rows("node:Person", {Person("x", {{"age", Value::Int(200)}})}))}},
      "node:Person row 0: @range violation on Person.age: value 200 > max 150");
  ExpectRejected(
      {{"node:Person", Change(TableChange::Op::kAppend,
                              Rows("node:Person", {Person("x", {{"age", Value::Int(-1)}})}))}},
      "node:Person row 0: @range violation on Person.age: value -1 < min 0");
  ExpectRejected({{"node:Person",
                   Change(TableChange::Op::kAppend,
                          Rows("node:Person", {Person("x", {{"score", Value::Float(2.25)}})}))}},
                 "node:Person row 0: @range violation on Person.score: value 2.25 > max 1.5");
  ExpectRejected(
      {{"node:Person",
        Change(TableChange::Op::kAppend,
               Rows("node:Person", {Person("x", {{"score", Value::Float(std::nan(""))}})}))}},
      "node:Person row 0: @range violation on Person.score: value is NaN");
  MustWrite({{"node:Person",
              Change(TableChange::Op::kAppend,
                     Rows("node:Person", {Person("x", {{"age", Value::Int(0)},
                                                       {"score", Value::Float(1.5)}})}))}});
}

TEST_P(ValidateTest, CheckIsAnUnanchoredSearchAndSkipsNulls) {
  ExpectRejected(
      {{"node:Person",
        Change(TableChange::Op::kAppend,
               Rows("node:Person", {Person("x", {{"email", Value::String("nobody")}})}))}},
      "node:Person row 0: @check violation on Person.email: value 'nobody' does not match pattern "
      "'@'");
  MustWrite(
      {{"node:Person", Change(TableChange::Op::kAppend,
                              Rows("node:Person", {Person("x", {{"email", Value::String("x@y")}}),
                                                   Person("y")}))}});
}

TEST_P(ValidateTest, KeyedIdsMustBeDerivedFromTheKey) {
  Row wrong = Person("ada");
  wrong.id = "someone-else";
  ExpectRejected(
      {{"node:Person", Change(TableChange::Op::kAppend, Rows("node:Person", {wrong}))}},
      "node:Person row 0: id 'someone-else' of keyed Person is not the id its key derives ('ada')");
}

TEST_P(ValidateTest, UniqueWithinTheBatchAndAgainstTheSnapshot) {
  ExpectRejected(
      {{"node:Person",
        Change(TableChange::Op::kAppend,
               Rows("node:Person", {Person("a", {{"email", Value::String("d@x")}}),
                                    Person("b", {{"email", Value::String("d@x")}})}))}},
      "node:Person row 1: @unique violation on Person.email: value 'd@x' held by 'a' and 'b'");
  MustWrite({{"node:Person",
              Change(TableChange::Op::kAppend,
                     Rows("node:Person", {Person("a", {{"email", Value::String("d@x")}})}))}});
  ExpectRejected(
      {{"node:Person",
        Change(TableChange::Op::kUpsert,
               Rows("node:Person", {Person("b", {{"email", Value::String("d@x")}})}))}},
      "node:Person row 0: @unique violation on Person.email: value 'd@x' held by 'a' and 'b'");
  // Re-writing the holder itself, or moving the value off the old holder in the same write, is
  // fine.
  MustWrite({{"node:Person",
              Change(TableChange::Op::kUpsert,
                     Rows("node:Person", {Person("a", {{"email", Value::String("d@x")}})}))}});
  MustWrite({{"node:Person",
              Change(TableChange::Op::kUpsert,
                     Rows("node:Person", {Person("a", {{"email", Value::String("e@x")}}),
                                          Person("b", {{"email", Value::String("d@x")}})}))}});
  // Nulls are exempt.
  MustWrite({{"node:Person",
              Change(TableChange::Op::kAppend, Rows("node:Person", {Person("c"), Person("d")}))}});
}

TEST_P(ValidateTest, UniqueOverEdgeEndpoints) {
  MustWrite({{"node:Person", Change(TableChange::Op::kAppend, Rows("node:Person", {Person("a")}))},
             {"node:Note",
              Change(TableChange::Op::kAppend,
                     Rows("node:Note", {Row{"n1", "", "", {{"text", Value::String("t")}}}}))},
             {"edge:Mentions",
              Change(TableChange::Op::kAppend, Rows("edge:Mentions", {Edge("m1", "n1", "a")}))}});
  ExpectRejected({{"edge:Mentions", Change(TableChange::Op::kAppend,
                                           Rows("edge:Mentions", {Edge("m2", "n1", "a")}))}},
                 "edge:Mentions row 0: @unique violation on Mentions.(src, dst): value '(n1, a)' "
                 "held by 'm1' and 'm2'");
}

TEST_P(ValidateTest, EdgeEndpointsMustExistAfterTheWrite) {
  MustWrite(
      {{"node:Person", Change(TableChange::Op::kAppend, Rows("node:Person", {Person("a")}))}});
  ExpectRejected({{"edge:WorksAt", Change(TableChange::Op::kAppend,
                                          Rows("edge:WorksAt", {Edge("w1", "a", "acme")}))}},
                 "edge:WorksAt row 0: edge WorksAt to 'acme' not found in Company");
  ExpectRejected({{"edge:WorksAt", Change(TableChange::Op::kAppend,
                                          Rows("edge:WorksAt", {Edge("w1", "zed", "acme")}))}},
                 "edge:WorksAt row 0: edge WorksAt from 'zed' not found in Person");
  // A node added by the same write counts; one deleted by it does not.
  MustWrite(
      {{"node:Company",
        Change(TableChange::Op::kAppend,
               Rows("node:Company", {Row{"acme", "", "", {{"name", Value::String("acme")}}}}))},
       {"edge:WorksAt",
        Change(TableChange::Op::kAppend, Rows("edge:WorksAt", {Edge("w1", "a", "acme")}))}});
  MustWrite(
      {{"node:Person", Change(TableChange::Op::kAppend, Rows("node:Person", {Person("b")}))}});
  ExpectRejected({{"node:Person", Delete({"b"})},
                  {"edge:WorksAt", Change(TableChange::Op::kAppend,
                                          Rows("edge:WorksAt", {Edge("w2", "b", "acme")}))}},
                 "edge:WorksAt row 0: edge WorksAt from 'b' not found in Person");
}

TEST_P(ValidateTest, RemovingReferencedNodesIsRefusedUnlessTheEdgesGoToo) {
  MustWrite(
      {{"node:Person",
        Change(TableChange::Op::kAppend, Rows("node:Person", {Person("a"), Person("b")}))},
       {"node:Company",
        Change(TableChange::Op::kAppend,
               Rows("node:Company", {Row{"acme", "", "", {{"name", Value::String("acme")}}}}))},
       {"edge:WorksAt",
        Change(TableChange::Op::kAppend, Rows("edge:WorksAt", {Edge("w1", "a", "acme")}))}});
  ExpectRejected(
      {{"node:Company", Delete({"acme"})}},
      "node:Company row 0: cannot remove Company 'acme': edge WorksAt 'w1' still references it");
  ExpectRejected(
      {{"node:Person", Change(TableChange::Op::kOverwrite, Rows("node:Person", {Person("b")}))}},
      "node:Person row 0: cannot remove Person 'a': edge WorksAt 'w1' still references it");
  MustWrite({{"node:Person", Delete({"a"})}, {"edge:WorksAt", Delete({"w1"})}});
  MustWrite({{"node:Company", Delete({"acme"})}});
}

TEST_P(ValidateTest, CardinalityCountsOutgoingEdgesOfTouchedSources) {
  MustWrite({{"node:Person", Change(TableChange::Op::kAppend,
                                    Rows("node:Person", {Person("a"), Person("b"), Person("c")}))},
             {"node:Company",
              Change(TableChange::Op::kAppend,
                     Rows("node:Company", {Row{"x", "", "", {{"name", Value::String("x")}}},
                                           Row{"y", "", "", {{"name", Value::String("y")}}}}))},
             {"edge:WorksAt",
              Change(TableChange::Op::kAppend, Rows("edge:WorksAt", {Edge("w1", "a", "x")}))}});
  // max 1 per source: a second edge from a fails, one from b is fine.
  ExpectRejected(
      {{"edge:WorksAt",
        Change(TableChange::Op::kAppend,
               Rows("edge:WorksAt", {Edge("w2", "b", "x"), Edge("w3", "a", "y")}))}},
      "edge:WorksAt row 1: @card violation on edge WorksAt: source 'a' has 2 edges (max 1)");
  // Replacing a's edge (delete + add in one write is an overwrite of the table image here).
  MustWrite({{"edge:WorksAt",
              Change(TableChange::Op::kUpsert, Rows("edge:WorksAt", {Edge("w1", "a", "y")}))}});
  // min 2: a source with one edge fails; with two passes; removing one of two fails, and so does
  // removing both (its count goes down to 0; decision 23) unless the source goes too.
  ExpectRejected({{"edge:Knows",
                   Change(TableChange::Op::kAppend, Rows("edge:Knows", {Edge("k1", "a", "b")}))}},
                 "edge:Knows row 0: @card violation on edge Knows: source 'a' has 1 edges (min 2)");
  MustWrite(
      {{"edge:Knows", Change(TableChange::Op::kAppend,
                             Rows("edge:Knows", {Edge("k1", "a", "b"), Edge("k2", "a", "c")}))}});
  ExpectRejected({{"edge:Knows", Delete({"k2"})}},
                 "edge:Knows row 0: @card violation on edge Knows: source 'a' has 1 edges (min 2)");
  ExpectRejected({{"edge:Knows", Delete({"k1", "k2"})}},
                 "edge:Knows row 0: @card violation on edge Knows: source 'a' has 0 edges (min 2)");
  MustWrite({{"node:Person", Delete({"a"})},
             {"edge:WorksAt", Delete({"w1"})},
             {"edge:Knows", Delete({"k1", "k2"})}});
}

// Issue 23 item 4: a source whose count goes down is checked against min even when the write
// leaves it with no edge (decision 23) — by a delete, by an upsert that moves an edge to another
// source, by an overwrite that leaves it out — unless the write removes the source node too. A
// node that never had an edge is not checked.
TEST_P(ValidateTest, CardinalityMinHoldsForSourcesThatLoseTheirLastEdge) {
  auto company = [](const std::string& name) {
    return Row{name, "", "", {{"name", Value::String(name)}}};
  };
  MustWrite({{"node:Person", Change(TableChange::Op::kAppend,
                                    Rows("node:Person", {Person("a"), Person("b"), Person("c")}))},
             {"node:Company",
              Change(TableChange::Op::kAppend, Rows("node:Company", {company("x"), company("y")}))},
             {"edge:Leads", Change(TableChange::Op::kAppend,
                                   Rows("edge:Leads", {Edge("l1", "a", "x"), Edge("l2", "b", "x"),
                                                       Edge("l3", "b", "y")}))}});
  const std::string a_left_with_none =
      "@card violation on edge Leads: source 'a' has 0 edges (min 1)";
  // A delete of a's only edge; the row named is the delete's index of that edge.
  ExpectRejected({{"edge:Leads", Delete({"l1"})}}, "edge:Leads row 0: " + a_left_with_none);
  ExpectRejected({{"edge:Leads", Delete({"l3", "l1"})}}, "edge:Leads row 1: " + a_left_with_none);
  // An upsert that moves a's edge to b, and an overwrite without a's edge.
  ExpectRejected({{"edge:Leads",
                   Change(TableChange::Op::kUpsert, Rows("edge:Leads", {Edge("l1", "b", "y")}))}},
                 "edge:Leads row 0: " + a_left_with_none);
  ExpectRejected(
      {{"edge:Leads", Change(TableChange::Op::kOverwrite,
                             Rows("edge:Leads", {Edge("l2", "b", "x"), Edge("l3", "b", "y")}))}},
      "edge:Leads row 0: " + a_left_with_none);
  // c never had an edge: untouched, fine. b keeps one of two; the edge moved to c gives c one.
  MustWrite({{"edge:Leads", Delete({"l3"})}});
  MustWrite({{"edge:Leads",
              Change(TableChange::Op::kAppend, Rows("edge:Leads", {Edge("l4", "c", "y")}))}});
  MustWrite({{"edge:Leads",
              Change(TableChange::Op::kUpsert, Rows("edge:Leads", {Edge("l5", "b", "y")}))}});
  MustWrite({{"edge:Leads",
              Change(TableChange::Op::kUpsert, Rows("edge:Leads", {Edge("l2", "c", "x")}))}});
  // A source removed with its edges is not checked: by a delete, and by an overwrite of both
  // tables that leaves the node out.
  MustWrite({{"node:Person", Delete({"a"})}, {"edge:Leads", Delete({"l1"})}});
  MustWrite(
      {{"node:Person",
        Change(TableChange::Op::kOverwrite, Rows("node:Person", {Person("c"), Person("d")}))},
       {"edge:Leads", Change(TableChange::Op::kOverwrite,
                             Rows("edge:Leads", {Edge("l2", "c", "x"), Edge("l4", "c", "y")}))}});
  // The overwrite kept c and added d, which has no edge: neither is below min.
  ExpectRejected({{"edge:Leads", Delete({"l4", "l2"})}},
                 "edge:Leads row 0: @card violation on edge Leads: source 'c' has 0 edges (min 1)");
}

TEST_P(ValidateTest, RowLabelsNameTheRow) {
  Result<WriteResult> r =
      Write({{"node:Person",
              Change(TableChange::Op::kAppend,
                     Rows("node:Person", {Person("a"), Person("b", {{"age", Value::Int(999)}})}))}},
            [](std::string_view key, uint64_t row) {
              return "line " + std::to_string(row + 10) + " (" + std::string(key) + ")";
            });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "line 11 (node:Person): @range violation on Person.age: value 999 > max 150");
}

// Runs each task at once on the caller's thread, counting them, and says it has two threads, so
// that a validation hands it the work it would hand a pool.
class TwoThreadsInline final : public Executor {
 public:
  void Submit(std::function<void()> task) override {
    ++submitted;
    task();
  }
  size_t Parallelism() const override { return 2; }
  int submitted = 0;
};

// The endpoints of a batch of edges are probed a side on the executor and a side on the caller's
// thread (decision 245), and the miss reported is still the smallest row's, its source first.
TEST_P(ValidateTest, EndpointProbesOfABatchRunASideOnTheExecutor) {
  MustWrite(
      {{"node:Person",
        Change(TableChange::Op::kAppend, Rows("node:Person", {Person("a"), Person("b")}))},
       {"node:Company",
        Change(TableChange::Op::kAppend,
               Rows("node:Company", {Row{"acme", "", "", {{"name", Value::String("acme")}}}}))}});
  Result<Snapshot> head = graph_->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  const OpenTableFn open = [&](std::string_view key) { return head->Table(std::string(key)); };
  const auto validate = [&](std::vector<Row> edges, Executor* executor) {
    std::map<std::string, TableChange> changes;
    TableChange& change = changes["edge:WorksAt"];
    change.op = TableChange::Op::kAppend;
    change.rows = Rows("edge:WorksAt", edges);
    return ValidateWrite(head->catalog(), changes, open, {}, {}, GetParam(), nullptr, executor)
        .message();
  };
  const std::vector<Row> edges = {Edge("w1", "a", "acme"), Edge("w2", "b", "zz"),
                                  Edge("w3", "yy", "acme")};
  const std::vector<Row> tie = {Edge("w1", "a", "acme"), Edge("w2", "yy", "zz")};
  TwoThreadsInline two;
  EXPECT_EQ(validate(edges, &two), "edge:WorksAt row 1: edge WorksAt to 'zz' not found in Company");
  EXPECT_EQ(two.submitted, 1);  // One batch: its sources.
  EXPECT_EQ(validate(edges, nullptr), validate(edges, &two));
  EXPECT_EQ(validate(tie, &two), "edge:WorksAt row 1: edge WorksAt from 'yy' not found in Person");
  EXPECT_EQ(validate(tie, nullptr), validate(tie, &two));
  EXPECT_EQ(validate({Edge("w1", "a", "acme"), Edge("w2", "b", "acme")}, &two), "");
}

INSTANTIATE_TEST_SUITE_P(SortBudgets, ValidateTest,
                         ::testing::Values(kSorterMemoryBytes, uint64_t{64}),
                         [](const ::testing::TestParamInfo<uint64_t>& param) {
                           return param.param == kSorterMemoryBytes ? "InMemory" : "Spilling";
                         });

}  // namespace
}  // namespace omnigraph::engine

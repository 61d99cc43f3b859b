// Every refused input of issue 48 item 2 on every backend: the listing (names and bytes) is
// unchanged, nothing was published, and a spilled load deletes exactly the fragments it wrote.
#include "engine/write/rejected_write_test.h"

#include "engine/ops/load.h"
#include "engine/write/mutate.h"
#include "storage/counting_store.h"
#include "storage/real_server.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person {
  name: String @key
  age: I32?
  email: String? @unique
  kind: enum(admin, user)?
  @range(age, 0..150) @check(email, "@")
}
node Company { name: String @key }
edge WorksAt: Person -> Company @card(0..1) { }
edge Knows: Person -> Person { }
)";

constexpr std::string_view kSeed = R"({"type":"Person","data":{"name":"ada","email":"ada@x"}}
{"type":"Person","data":{"name":"bob"}}
{"type":"Company","data":{"name":"acme"}}
{"type":"Company","data":{"name":"globex"}}
{"edge":"WorksAt","from":"ada","to":"acme"}
{"edge":"Knows","from":"ada","to":"bob"}
)";

constexpr std::string_view kQueries = R"(
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query add_both($company: String, $person: String, $age: I32) {
  insert Company { name: $company }
  insert Person { name: $person, age: $age }
}
)";

// Every object of the store: name -> bytes.
std::map<std::string, std::string> Listing(storage::ObjectStore& store) {
  std::map<std::string, std::string> out;
  Result<std::vector<storage::ObjectMeta>> all = storage::ListAll(store, "");
  OMNIGRAPH_CHECK_MSG(all.ok(), all.status().ToString());
  for (const storage::ObjectMeta& m : *all) {
    Result<storage::GetResult> got = store.Get(m.name);
    OMNIGRAPH_CHECK_MSG(got.ok(), got.status().ToString());
    out[m.name] = got->data;
  }
  return out;
}

// The names in `after` but not in `before`, and those whose bytes differ or that are gone.
std::string ListingDiff(const std::map<std::string, std::string>& before,
                        const std::map<std::string, std::string>& after) {
  std::string out;
  for (const auto& [name, bytes] : after) {
    auto it = before.find(name);
    if (it == before.end()) out += "  added " + name + "\n";
    if (it != before.end() && it->second != bytes) out += "  changed " + name + "\n";
  }
  for (const auto& [name, bytes] : before) {
    if (!after.contains(name)) out += "  removed " + name + "\n";
  }
  return out;
}

class Fixture {
 public:
  explicit Fixture(const RejectedWriteBackend& backend, std::string_view label) {
    Result<std::shared_ptr<storage::ObjectStore>> opened = backend.open(label);
    OMNIGRAPH_CHECK_MSG(opened.ok(), opened.status().ToString());
    counting_ = std::make_shared<storage::CountingStore>(*opened);
    Result<std::unique_ptr<Graph>> g =
        Graph::Init(storage::Runtime::ForTest(counting_, 5), kSchema);
    OMNIGRAPH_CHECK_MSG(g.ok(), g.status().ToString());
    graph_ = std::move(*g);
    Result<LoadResult> seeded = Load(*graph_, "main", kSeed, LoadMode::kMerge);
    OMNIGRAPH_CHECK_MSG(seeded.ok(), seeded.status().ToString());
  }

  Graph& graph() { return *graph_; }
  storage::CountingStore& store() { return *counting_; }

  // Runs `refused`, expects it to fail with `code` and the message to contain `says`, and the
  // listing to be what it was before, byte for byte.
  void ExpectNothingLeft(std::string_view what, Code code, std::string_view says,
                         const std::function<Status()>& refused) {
    SCOPED_TRACE(std::string(what));
    const std::map<std::string, std::string> before = Listing(*counting_);
    Status s = refused();
    ASSERT_FALSE(s.ok()) << "accepted";
    EXPECT_EQ(s.code(), code) << s.ToString();
    EXPECT_NE(s.message().find(says), std::string::npos) << s.ToString();
    const std::map<std::string, std::string> after = Listing(*counting_);
    EXPECT_EQ(before.size(), after.size());
    EXPECT_TRUE(before == after) << "the refused input left objects behind:\n"
                                 << ListingDiff(before, after);
  }

  Status LoadText(std::string_view ndjson, LoadMode mode, LoadOptions options = {},
                  std::string_view branch = "main") {
    return Load(*graph_, branch, ndjson, mode, options).status();
  }

 private:
  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
};

// Each refused load of the issue, in memory (no batch written before the input ends).
TEST_P(RejectedWriteTest, ARefusedLoadLeavesTheListingUnchanged) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Fixture f(GetParam(), "refused-load");
  const std::string_view cy = R"({"type":"Person","data":{"name":"cy"}})"
                              "\n";
  auto load = [&](std::string tail, LoadMode mode = LoadMode::kMerge) {
    return [&f, input = std::string(cy) + tail, mode] { return f.LoadText(input, mode); };
  };
  f.ExpectNothingLeft("orphan edge", Code::kInvalidArgument, "line 2: edge Knows to 'nobody'",
                      load(R"({"edge":"Knows","from":"ada","to":"nobody"})"));
  f.ExpectNothingLeft("@range", Code::kInvalidArgument, "@range violation on Person.age",
                      load(R"({"type":"Person","data":{"name":"dee","age":200}})"));
  f.ExpectNothingLeft("@check", Code::kInvalidArgument, "@check violation on Person.email",
                      load(R"({"type":"Person","data":{"name":"dee","email":"nobody"}})"));
  f.ExpectNothingLeft("@unique", Code::kInvalidArgument, "@unique",
                      load(R"({"type":"Person","data":{"name":"dee","email":"ada@x"}})"));
  f.ExpectNothingLeft("@card", Code::kInvalidArgument, "@card violation on edge WorksAt",
                      load(R"({"edge":"WorksAt","from":"ada","to":"globex"})"));
  f.ExpectNothingLeft("enum", Code::kInvalidArgument, "invalid enum value 'root' for Person.kind",
                      load(R"({"type":"Person","data":{"name":"dee","kind":"root"}})"));
  // Company would be staged beside Person: the conflict is found before any table is.
  f.ExpectNothingLeft("append of an existing key", Code::kKeyConflict, "'ada'",
                      load(R"({"type":"Company","data":{"name":"newco"}})"
                           "\n"
                           R"({"type":"Person","data":{"name":"ada"}})",
                           LoadMode::kAppend));
  // The store was only read.
  Result<Snapshot> head = f.graph().SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ((*head->Table("node:Person"))->entity_count(), 2u);
}

TEST_P(RejectedWriteTest, ARefusedLoadIntoANewBranchCreatesNoBranch) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Fixture f(GetParam(), "refused-from");
  LoadOptions from;
  from.from = "main";
  f.ExpectNothingLeft("--from, orphan edge", Code::kInvalidArgument, "edge Knows to 'nobody'", [&] {
    return f.LoadText(R"({"edge":"Knows","from":"ada","to":"nobody"})", LoadMode::kMerge, from,
                      "feature");
  });
  f.ExpectNothingLeft("--from, append of an existing key", Code::kKeyConflict, "'ada'", [&] {
    return f.LoadText(R"({"type":"Person","data":{"name":"ada"}})", LoadMode::kAppend, from,
                      "feature");
  });
  EXPECT_EQ(f.graph().SnapshotOfBranch("feature").status().code(), Code::kBranchNotFound);
  // An accepted one still creates it.
  ASSERT_TRUE(
      f.LoadText(R"({"type":"Person","data":{"name":"cy"}})", LoadMode::kAppend, from, "feature")
          .ok());
  EXPECT_TRUE(f.graph().SnapshotOfBranch("feature").ok());
}

TEST_P(RejectedWriteTest, ARefusedMutationLeavesTheListingUnchanged) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Fixture f(GetParam(), "refused-mutation");
  using Params = std::map<std::string, schema::Value>;
  f.ExpectNothingLeft("mutation, @range", Code::kInvalidArgument, "@range violation", [&] {
    return Mutate(f.graph(), kQueries, "add_person",
                  Params{{"name", schema::Value::String("cy")}, {"age", schema::Value::Int(200)}})
        .status();
  });
  // Company would be staged beside Person. (An insert of a key the branch holds is not refused:
  // a keyed insert updates that node, as in the reference.)
  f.ExpectNothingLeft("mutation of two tables, @range", Code::kInvalidArgument, "@range violation",
                      [&] {
                        return Mutate(f.graph(), kQueries, "add_both",
                                      Params{{"company", schema::Value::String("newco")},
                                             {"person", schema::Value::String("dee")},
                                             {"age", schema::Value::Int(-5)}})
                            .status();
                      });
}

// Loads that write batches ahead (two rows a batch): a refusal deletes exactly the fragments
// the load wrote, and the listing is what it was.
TEST_P(RejectedWriteTest, ARefusedSpilledLoadDeletesTheFragmentsItWrote) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Fixture f(GetParam(), "refused-spilled");
  LoadOptions small;
  small.limits.batch_rows = 2;
  std::string six;
  for (int i = 0; i < 6; ++i) {
    six += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"("}})" + "\n";
  }
  struct Case {
    std::string what, input;
    LoadMode mode;
    Code code;
    std::string says;
    // Fragments written ahead: six Person rows in batches of two make three; a seventh Person
    // row makes a fourth at the end (its type was spilled already), an edge line none (Knows was
    // never spilled, so it is validated in memory), a line that does not parse none.
    uint64_t fragments;
    std::string branch = "main";
  };
  const std::vector<Case> cases = {
      {"spilled orphan edge", six + R"({"edge":"Knows","from":"p0","to":"nobody"})",
       LoadMode::kMerge, Code::kInvalidArgument, "line 7: edge Knows to 'nobody'", 3},
      {"spilled @range", six + R"({"type":"Person","data":{"name":"p9","age":-1}})",
       LoadMode::kMerge, Code::kInvalidArgument, "line 7: @range violation", 4},
      {"spilled append of an existing key", six + R"({"type":"Person","data":{"name":"bob"}})",
       LoadMode::kAppend, Code::kKeyConflict, "'bob'", 4},
      {"spilled bad line", six + "{", LoadMode::kMerge, Code::kInvalidArgument, "line 7", 3},
      {"spilled --from", six + R"({"edge":"Knows","from":"p0","to":"nobody"})", LoadMode::kMerge,
       Code::kInvalidArgument, "edge Knows to 'nobody'", 3, "feature"},
  };
  for (const Case& c : cases) {
    LoadOptions options = small;
    if (c.branch != "main") options.from = "main";
    storage::OpCounts before;
    f.ExpectNothingLeft(c.what, c.code, c.says, [&] {
      before = f.store().Snapshot();
      return f.LoadText(c.input, c.mode, options, c.branch);
    });
    // Each fragment written ahead is deleted once, and nothing else is.
    const storage::OpCounts done = f.store().Snapshot() - before;
    EXPECT_EQ(done.deletes, c.fragments) << c.what << ": " << done.ToString();
    EXPECT_EQ(done.put_if_absent, c.fragments) << c.what << ": " << done.ToString();
  }
  EXPECT_EQ(f.graph().SnapshotOfBranch("feature").status().code(), Code::kBranchNotFound);
}

// Init on a root holding an object that is not a graph: refused, naming the root and the object,
// with nothing written; --force writes the graph beside it and leaves it alone; a second forced
// init never replaces the graph.
TEST_P(RejectedWriteTest, InitRefusesARootHoldingAnObjectAndForceLeavesItInPlace) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Result<std::shared_ptr<storage::ObjectStore>> opened = GetParam().open("init-foreign");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<storage::ObjectStore> store = *opened;
  const storage::Runtime rt = storage::Runtime::ForTest(store, 7);
  ASSERT_TRUE(store->Put("notes/readme.txt", "not a graph").ok());
  const std::map<std::string, std::string> before = Listing(*store);

  Result<std::unique_ptr<Graph>> strict = Graph::Init(rt, kSchema);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), Code::kAlreadyExists) << strict.status().ToString();
  EXPECT_EQ(strict.status().message(),
            "init refused: " + store->Describe() +
                " is not empty: it holds 1 object: 'notes/readme.txt'; init needs an empty "
                "folder or prefix (--force creates the graph among them and leaves them in place)");
  EXPECT_EQ(strict.status().object(), "notes/readme.txt");
  EXPECT_TRUE(Listing(*store) == before) << ListingDiff(before, Listing(*store));

  InitOptions force;
  force.force = true;
  InitReport report;
  Result<std::unique_ptr<Graph>> forced = Graph::Init(rt, kSchema, force, &report);
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(report.found, std::vector<std::string>{"notes/readme.txt"});
  EXPECT_FALSE(report.found_more);
  EXPECT_FALSE(report.completed_graph_id.has_value());
  Result<storage::GetResult> kept = store->Get("notes/readme.txt");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->data, "not a graph");
  ASSERT_TRUE(Graph::Open(rt).ok());

  const std::map<std::string, std::string> initialized = Listing(*store);
  Result<std::unique_ptr<Graph>> again = Graph::Init(rt, kSchema, force);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kAlreadyInitialized) << again.status().ToString();
  EXPECT_TRUE(Listing(*store) == initialized);
}

}  // namespace
}  // namespace omnigraph::engine

// Schema plan and apply on main (docs/design/engine.md "Schema apply").
#include <gtest/gtest.h>

#include <functional>

#include "commit/names.h"
#include "commit/stream.h"
#include "engine/graph/graph.h"
#include "engine/ops/schema_apply.h"
#include "query/exec/table_schema.h"
#include "schema/archive.h"
#include "storage/counting_store.h"
#include "storage/forwarding_store.h"
#include "storage/memory_store.h"
#include "table/column_builder.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company { role: String? }
)";

using Row = std::vector<std::optional<std::string>>;

// Rows for a table of `catalog`, one string (or null) per column of TableSchemaFor.
table::ColumnBatch Rows(const schema::Catalog& catalog, std::string_view table_key,
                        const std::vector<Row>& rows) {
  const schema::TypeDef* type = catalog.FindByTableKey(table_key);
  OMNIGRAPH_CHECK(type != nullptr);
  table::Schema columns = *query::TableSchemaFor(*type);
  std::vector<table::Column> out;
  for (size_t c = 0; c < columns.size(); ++c) {
    table::ColumnBuilder b(columns[c].type, columns[c].nullable);
    for (const Row& row : rows) {
      const std::optional<std::string>& v = row.at(c);
      if (!v) {
        b.AppendNull();
      } else if (columns[c].type.id == table::TypeId::kI32) {
        b.Append<int32_t>(std::stoi(*v));
      } else {
        b.AppendString(*v);
      }
    }
    out.push_back(*b.Finish());
  }
  return table::ColumnBatch(columns, std::move(out), rows.size());
}

Result<WriteResult> Insert(Graph& graph, std::string_view key, const std::vector<Row>& rows) {
  Result<Snapshot> s = graph.SnapshotOfBranch("main");
  OMNIGRAPH_RETURN_IF_ERROR(s.status());
  WriteRequest w;
  w.changes[std::string(key)] =
      TableChange{TableChange::Op::kAppend, Rows(s->catalog(), key, rows), {}};
  return Write(graph, w);
}

// The value of one property of one row, as text ("" for null), read through the catalog.
std::string ValueOf(const Snapshot& s, std::string_view table_key, const std::string& id,
                    std::string_view property) {
  const schema::TypeDef* type = s.catalog().FindByTableKey(table_key);
  OMNIGRAPH_CHECK(type != nullptr);
  const schema::PropertyDef* p = type->FindProperty(property);
  OMNIGRAPH_CHECK(p != nullptr);
  std::shared_ptr<const table::TableVersion> t = *s.Table(table_key);
  std::vector<std::string> ids = {id};
  std::vector<uint32_t> fields = {static_cast<uint32_t>(p->id)};
  Result<table::LookupResult> found = t->Lookup(ids, fields);
  OMNIGRAPH_CHECK(found.ok() && found->found[0]);
  const table::Column& c = found->rows.column(0);
  if (c.IsNull(0)) return "";
  if (c.type().id == table::TypeId::kI32) return std::to_string(c.values<int32_t>()[0]);
  return std::string(c.StringAt(0));
}

struct Fixture {
  std::shared_ptr<storage::CountingStore> store =
      std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
  storage::Runtime rt = storage::Runtime::ForTest(store, 1);
  std::unique_ptr<Graph> graph;

  Fixture() {
    graph = std::move(*Graph::Init(rt, kSchema));
    OMNIGRAPH_CHECK(
        Insert(*graph, "node:Person", {{"Ada", "Ada", "36"}, {"Grace", "Grace", {}}}).ok());
    OMNIGRAPH_CHECK(Insert(*graph, "node:Company", {{"Acme", "Acme"}}).ok());
    OMNIGRAPH_CHECK(Insert(*graph, "edge:WorksAt", {{"e1", "Ada", "Acme", "cto"}}).ok());
  }
  Snapshot Head() { return *graph->SnapshotOfBranch("main"); }
};

TEST(SchemaApplyTest, AddsATypeAndAPropertyAndExistingRowsStillRead) {
  Fixture f;
  Snapshot before = f.Head();
  const std::string next = R"(
node Person { name: String @key  age: I32?  email: String? }
node Company { name: String @key }
node Tag { label: String @key }
edge WorksAt: Person -> Company { role: String? }
)";
  Result<schema::MigrationPlan> plan = PlanSchema(*f.graph, next);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(CanonicalJson(plan->ToJson()),
            R"({"steps":[{"kind":"add_property","property_name":"email","property_type":)"
            R"({"enum_values":null,"list":false,"nullable":true,"scalar":"String"},)"
            R"("type_kind":"node","type_name":"Person"},)"
            R"({"kind":"add_type","name":"Tag","type_kind":"node"}],"supported":true})");
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, next);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_TRUE(applied->applied);
  EXPECT_EQ(applied->seq, before.state().seq + 1);
  EXPECT_EQ(applied->rewritten_tables, std::vector<std::string>{"node:Person"});

  // One record: the new archive, one registration, pins for Tag (empty) and Person (rewritten).
  commit::Record record = *commit::LookupCommit(*f.rt.store, applied->commit_id);
  ASSERT_EQ(record.registrations.size(), 1u);
  EXPECT_EQ(record.registrations[0].table_key, "node:Tag");
  EXPECT_EQ(record.registrations[0].kind, "node");
  EXPECT_EQ(record.pins.size(), 2u);
  EXPECT_TRUE(record.renames.empty());
  EXPECT_TRUE(record.tombstones.empty());
  EXPECT_EQ(record.schema.identity_version, 2u);
  EXPECT_NE(record.schema.content_hash, before.state().schema.content_hash);
  Result<storage::GetResult> archive =
      f.rt.store->Get(commit::SchemaArchiveName(record.schema.content_hash));
  ASSERT_TRUE(archive.ok());
  EXPECT_EQ(schema::ContentHash(archive->data), record.schema.content_hash);

  Snapshot after = f.Head();
  const schema::TypeDef* tag = after.catalog().FindNode("Tag");
  ASSERT_NE(tag, nullptr);
  std::shared_ptr<const table::TableVersion> tags = *after.Table("node:Tag");
  EXPECT_EQ(tags->entity_count(), 0u);
  EXPECT_EQ(tags->table(), (TableId{tag->id, tag->incarnation}));
  // Staged against the captured head (D9), like every other write.
  ASSERT_TRUE(tags->manifest().staged_against.has_value());
  EXPECT_EQ(*tags->manifest().staged_against, (table::StagedAgainst{"main", before.state().seq}));
  // Existing rows read; the new property is null; the old values are intact.
  EXPECT_EQ((*after.Table("node:Person"))->entity_count(), 2u);
  EXPECT_EQ((*after.Table("node:Person"))->schema(),
            *query::TableSchemaFor(*after.catalog().FindNode("Person")));
  EXPECT_EQ(ValueOf(after, "node:Person", "Ada", "email"), "");
  EXPECT_EQ(ValueOf(after, "node:Person", "Ada", "age"), "36");
  EXPECT_EQ(ValueOf(after, "node:Person", "Grace", "name"), "Grace");
  // Untouched tables keep their versions.
  EXPECT_EQ((*after.Table("node:Company"))->pin(), (*before.Table("node:Company"))->pin());

  // Writes with the new columns land, including into the new table.
  ASSERT_TRUE(Insert(*f.graph, "node:Person", {{"Alan", "Alan", "41", "alan@x"}}).ok());
  ASSERT_TRUE(Insert(*f.graph, "node:Tag", {{"db", "db"}}).ok());
  Snapshot later = f.Head();
  EXPECT_EQ(ValueOf(later, "node:Person", "Alan", "email"), "alan@x");
  EXPECT_EQ((*later.Table("node:Tag"))->entity_count(), 1u);

  // The snapshot at the pre-apply commit still sees the old schema and the old table.
  Snapshot old = *f.graph->SnapshotAtCommit(before.commit_id());
  EXPECT_EQ(old.catalog().FindNode("Tag"), nullptr);
  EXPECT_EQ(old.catalog().FindNode("Person")->FindProperty("email"), nullptr);
  EXPECT_EQ(old.Table("node:Tag").status().kind(), Kind::kNotFound);
  EXPECT_EQ((*old.Table("node:Person"))->schema().size(), 3u);  // id, name, age.
  EXPECT_EQ(ValueOf(old, "node:Person", "Ada", "age"), "36");
}

TEST(SchemaApplyTest, AWriteBuiltForColumnsAnApplyChangedIsReadSetChanged) {
  Fixture f;
  Snapshot planned = f.Head();
  // Two writes built from one snapshot: Person rows and Company rows of that schema.
  WriteRequest people;
  people.changes["node:Person"] = TableChange{
      TableChange::Op::kAppend, Rows(planned.catalog(), "node:Person", {{"Bob", "Bob", "40"}}), {}};
  people.planned_schema = planned.state().schema;
  WriteRequest companies;
  companies.changes["node:Company"] =
      TableChange{TableChange::Op::kAppend,
                  Rows(planned.catalog(), "node:Company", {{"Initech", "Initech"}}),
                  {}};
  companies.planned_schema = planned.state().schema;
  // A schema apply lands in between: Person gains a column, Company is left alone.
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
node Person { name: String @key  age: I32?  email: String? }
node Company { name: String @key }
edge WorksAt: Person -> Company { role: String? }
)");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  const std::string after_apply = f.Head().commit_id();

  // The Person rows have the old columns: the writer must read again, and nothing is published.
  Result<WriteResult> refused = Write(*f.graph, people);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kReadSetChanged) << refused.status().ToString();
  EXPECT_EQ(refused.status().kind(), Kind::kConflict);
  EXPECT_EQ(refused.status().message(),
            "the schema changed after this write was planned: its columns are not those the rows "
            "have; read the branch again and redo the write (table 'node:Person')");
  EXPECT_EQ(f.Head().commit_id(), after_apply);

  // The Company rows still fit: the write lands, validated under the new schema.
  Result<WriteResult> landed = Write(*f.graph, companies);
  ASSERT_TRUE(landed.ok()) << landed.status().ToString();
  EXPECT_EQ(ValueOf(f.Head(), "node:Company", "Initech", "name"), "Initech");

  // Without planned_schema the mismatch is the caller's: InvalidArgument, as before.
  people.planned_schema.reset();
  EXPECT_EQ(Write(*f.graph, people).status().kind(), Kind::kInvalidArgument);
}

TEST(SchemaApplyTest, ARenameKeepsTheStableIdAndTheTable) {
  Fixture f;
  Snapshot before = f.Head();
  const schema::TypeDef* person = before.catalog().FindNode("Person");
  const std::shared_ptr<const table::TableVersion> old_table = *before.Table("node:Person");
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
node Human @rename_from("Person") { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Human -> Company { role: String? }
)");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  ASSERT_EQ(applied->plan.steps.size(), 1u);
  EXPECT_EQ(applied->plan.steps[0].kind, schema::StepKind::kRenameType);
  EXPECT_TRUE(applied->rewritten_tables.empty());
  commit::Record record = *commit::LookupCommit(*f.rt.store, applied->commit_id);
  ASSERT_EQ(record.renames.size(), 1u);
  EXPECT_EQ(record.renames[0].from, "node:Person");
  EXPECT_EQ(record.renames[0].to, "node:Human");
  EXPECT_EQ(record.renames[0].stable_table_id, person->id);
  EXPECT_TRUE(record.pins.empty());  // No data copied.
  EXPECT_TRUE(record.registrations.empty());
  EXPECT_TRUE(record.tombstones.empty());

  Snapshot after = f.Head();
  const schema::TypeDef* human = after.catalog().FindNode("Human");
  ASSERT_NE(human, nullptr);
  EXPECT_EQ(human->id, person->id);
  EXPECT_EQ(human->incarnation, person->incarnation);
  EXPECT_EQ(after.catalog().FindNode("Person"), nullptr);
  EXPECT_EQ(after.Table("node:Person").status().kind(), Kind::kNotFound);
  std::shared_ptr<const table::TableVersion> table = *after.Table("node:Human");
  // The same table and the same version: same identity, same manifest.
  EXPECT_EQ(table->manifest_name(), old_table->manifest_name());
  EXPECT_EQ(after.state().FindByKey("node:Human")->pin.staged_version,
            before.state().FindByKey("node:Person")->pin.staged_version);
  EXPECT_EQ(ValueOf(after, "node:Human", "Ada", "age"), "36");
  EXPECT_EQ(after.catalog().FindEdge("WorksAt")->from.name, "Human");
  // Writes go to the renamed table.
  ASSERT_TRUE(Insert(*f.graph, "node:Human", {{"Alan", "Alan", "41"}}).ok());
  EXPECT_EQ((*f.Head().Table("node:Human"))->entity_count(), 3u);
  // A fresh reader folds the rename from the records.
  storage::Runtime other = storage::Runtime::ForTest(f.store, 2);
  std::unique_ptr<Graph> reopened = std::move(*Graph::Open(other));
  EXPECT_EQ((*reopened->SnapshotOfBranch("main")->Table("node:Human"))->entity_count(), 3u);
}

TEST(SchemaApplyTest, ARenamedPropertyKeepsItsValuesUnderTheNewName) {
  Fixture f;
  Snapshot before = f.Head();
  const uint64_t age_id = before.catalog().FindNode("Person")->FindProperty("age")->id;
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
node Person { name: String @key  years: I32? @rename_from("age") }
node Company { name: String @key }
edge WorksAt: Person -> Company { role: String? }
)");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  ASSERT_EQ(applied->plan.steps.size(), 1u);
  EXPECT_EQ(applied->plan.steps[0].kind, schema::StepKind::kRenameProperty);
  EXPECT_EQ(applied->rewritten_tables, std::vector<std::string>{"node:Person"});
  Snapshot after = f.Head();
  EXPECT_EQ(after.catalog().FindNode("Person")->FindProperty("years")->id, age_id);
  EXPECT_EQ(ValueOf(after, "node:Person", "Ada", "years"), "36");
  EXPECT_EQ(ValueOf(after, "node:Person", "Grace", "years"), "");
  EXPECT_EQ((*after.Table("node:Person"))->entity_count(), 2u);
  ASSERT_TRUE(Insert(*f.graph, "node:Person", {{"Alan", "Alan", "41"}}).ok());
}

TEST(SchemaApplyTest, SoftDropsHideDataFromTheCatalogAndTimeTravelStillReadsIt) {
  Fixture f;
  Snapshot before = f.Head();
  const uint64_t age_id = before.catalog().FindNode("Person")->FindProperty("age")->id;
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
node Person { name: String @key }
node Company { name: String @key }
)");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  std::vector<std::string> kinds;
  for (const schema::MigrationStep& s : applied->plan.steps) {
    kinds.push_back(std::string(schema::StepKindName(s.kind)));
    EXPECT_EQ(s.mode, schema::DropMode::kSoft);
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"drop_property", "drop_type"}));
  commit::Record record = *commit::LookupCommit(*f.rt.store, applied->commit_id);
  ASSERT_EQ(record.tombstones.size(), 1u);
  EXPECT_EQ(record.tombstones[0].table_key, "edge:WorksAt");

  Snapshot after = f.Head();
  EXPECT_EQ(after.catalog().FindNode("Person")->FindProperty("age"), nullptr);
  EXPECT_EQ(after.catalog().FindEdge("WorksAt"), nullptr);
  EXPECT_EQ(after.Table("edge:WorksAt").status().kind(), Kind::kNotFound);
  EXPECT_EQ(after.state().tables.size(), 2u);
  // The table still reads, without the dropped column.
  std::shared_ptr<const table::TableVersion> people = *after.Table("node:Person");
  EXPECT_EQ(people->entity_count(), 2u);
  for (const table::Field& field : people->schema()) EXPECT_NE(field.id, age_id);
  EXPECT_EQ(ValueOf(after, "node:Person", "Ada", "name"), "Ada");
  // The data stays reachable at the earlier commit until cleanup.
  Snapshot old = *f.graph->SnapshotAtCommit(before.commit_id());
  EXPECT_EQ(ValueOf(old, "node:Person", "Ada", "age"), "36");
  EXPECT_EQ((*old.Table("edge:WorksAt"))->entity_count(), 1u);
  // The retired ids are never reused: re-adding `age` mints a new property id.
  Result<SchemaApplyResult> again = ApplySchema(*f.graph, R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
)");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  Snapshot readded = f.Head();
  EXPECT_NE(readded.catalog().FindNode("Person")->FindProperty("age")->id, age_id);
  EXPECT_EQ(ValueOf(readded, "node:Person", "Ada", "age"), "");
}

TEST(SchemaApplyTest, HardDropsWithAllowDataLoss) {
  Fixture f;
  SchemaApplyOptions options;
  options.plan.allow_data_loss = true;
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
)",
                                                  options);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  ASSERT_EQ(applied->plan.steps.size(), 1u);
  EXPECT_EQ(applied->plan.steps[0].mode, schema::DropMode::kHard);
  EXPECT_EQ(f.Head().Table("edge:WorksAt").status().kind(), Kind::kNotFound);
}

TEST(SchemaApplyTest, AnUnsupportedChangeIsRefusedAndWritesNothing) {
  Fixture f;
  Snapshot before = f.Head();
  const storage::OpCounts start = f.store->Snapshot();
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
node Person { name: String @key  age: I64?  email: String }
node Company { name: String @key }
edge WorksAt: Person -> Company { role: String? }
)");
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), Code::kUnsupported);
  EXPECT_NE(applied.status().message().find("[OG-MF-106]"), std::string::npos)
      << applied.status().ToString();
  EXPECT_NE(applied.status().message().find("[OG-MF-103]"), std::string::npos);
  const storage::OpCounts used = f.store->Snapshot() - start;
  EXPECT_EQ(used.writes(), 0u) << used.ToString();
  EXPECT_EQ(f.Head().state().seq, before.state().seq);
  // A source that does not parse is InvalidArgument, also with nothing written.
  EXPECT_EQ(ApplySchema(*f.graph, "node {").status().code(), Code::kInvalidArgument);
  EXPECT_EQ((f.store->Snapshot() - start).writes(), 0u);
}

// An edge key follows the node-key rules: adding one to an existing edge type is refused (it
// would change the stored ids) and writes nothing; a new keyed edge type is added, and a write
// to it must carry the ids its key derives.
TEST(SchemaApplyTest, EdgeKeysAreAddedOnlyWithTheirTypeAndItsRowsCarryDerivedIds) {
  Fixture f;
  const uint64_t seq = f.Head().state().seq;
  const storage::OpCounts start = f.store->Snapshot();
  Result<SchemaApplyResult> keyed = ApplySchema(*f.graph, R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company { role: String?  @key(@src, @dst) }
)");
  ASSERT_FALSE(keyed.ok());
  EXPECT_EQ(keyed.status().code(), Code::kUnsupported);
  EXPECT_NE(keyed.status().message().find("adding constraint '@key(src, dst)' to 'WorksAt' is not "
                                          "supported in schema migration v1"),
            std::string::npos)
      << keyed.status().ToString();
  EXPECT_EQ((f.store->Snapshot() - start).writes(), 0u);
  EXPECT_EQ(f.Head().state().seq, seq);

  Result<SchemaApplyResult> added = ApplySchema(
      *f.graph, std::string(kSchema) + "edge Likes: Person -> Person { @key(@src, @dst) }\n");
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  Result<WriteResult> minted = Insert(*f.graph, "edge:Likes", {{"l1", "Ada", "Grace"}});
  ASSERT_FALSE(minted.ok());
  EXPECT_NE(minted.status().message().find(
                R"(id 'l1' of keyed Likes is not the id its key derives ('["Ada","Grace"]'))"),
            std::string::npos)
      << minted.status().ToString();
  ASSERT_TRUE(Insert(*f.graph, "edge:Likes", {{R"(["Ada","Grace"])", "Ada", "Grace"}}).ok());
  EXPECT_EQ((*f.Head().Table("edge:Likes"))->entity_count(), 1u);
}

TEST(SchemaApplyTest, ApplyOnABranchOtherThanMainIsRefused) {
  Fixture f;
  ASSERT_TRUE(f.graph->CreateBranch("feature", "main").ok());
  const storage::OpCounts start = f.store->Snapshot();
  SchemaApplyOptions options;
  options.branch = "feature";
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
node Tag { label: String @key }
edge WorksAt: Person -> Company { role: String? }
)",
                                                  options);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), Code::kUnsupported);
  EXPECT_NE(applied.status().message().find("only on main"), std::string::npos);
  EXPECT_EQ((f.store->Snapshot() - start).total(), 0u);
}

TEST(SchemaApplyTest, ANoOpApplyPublishesNothing) {
  Fixture f;
  Snapshot before = f.Head();
  const storage::OpCounts start = f.store->Snapshot();
  // The same schema, reordered and reformatted.
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
edge WorksAt: Person -> Company {
  role: String?
}
node Company { name: String @key }
node Person { name: String @key
  age: I32? }
)");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_FALSE(applied->applied);
  EXPECT_TRUE(applied->plan.is_noop());
  EXPECT_EQ(applied->commit_id, before.commit_id());
  EXPECT_EQ((f.store->Snapshot() - start).writes(), 0u);
  EXPECT_EQ(f.Head().state().seq, before.state().seq);
}

TEST(SchemaApplyTest, AStaleExpectedHeadIsPreconditionFailed) {
  Fixture f;
  Snapshot before = f.Head();
  ASSERT_TRUE(Insert(*f.graph, "node:Company", {{"Initech", "Initech"}}).ok());
  SchemaApplyOptions options;
  options.expected_head = before.commit_id();
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
node Tag { label: String @key }
edge WorksAt: Person -> Company { role: String? }
)",
                                                  options);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), Code::kPreconditionFailed);
}

TEST(SchemaApplyTest, StagesNewAndRewrittenTablesInParallelOnAThreadPool) {
  storage::Runtime rt =
      storage::Runtime::ForStore(std::make_shared<storage::MemoryStore>(), /*threads=*/4);
  std::unique_ptr<Graph> graph = std::move(*Graph::Init(rt, kSchema));
  ASSERT_TRUE(Insert(*graph, "node:Person", {{"Ada", "Ada", "36"}}).ok());
  ASSERT_TRUE(Insert(*graph, "node:Company", {{"Acme", "Acme"}}).ok());
  Result<SchemaApplyResult> applied = ApplySchema(*graph, R"(
node Person { name: String @key  age: I32?  email: String? }
node Company { name: String @key  city: String? }
node Tag { label: String @key }
node Topic { title: String @key }
edge WorksAt: Person -> Company { role: String?  since: I32? }
edge About: Tag -> Topic
)");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(applied->rewritten_tables.size(), 3u);
  commit::Record record = *commit::LookupCommit(*rt.store, applied->commit_id);
  EXPECT_EQ(record.registrations.size(), 3u);
  EXPECT_EQ(record.pins.size(), 6u);
  Snapshot head = *graph->SnapshotOfBranch("main");
  EXPECT_EQ(head.state().tables.size(), 6u);
  for (const auto& [id, t] : head.state().tables) {
    std::shared_ptr<const table::TableVersion> v = *head.Table(t.registration.table_key);
    EXPECT_EQ(v->schema(),
              *query::TableSchemaFor(*head.catalog().FindByTableKey(t.registration.table_key)))
        << t.registration.table_key;
  }
  EXPECT_EQ(ValueOf(head, "node:Company", "Acme", "city"), "");
  EXPECT_EQ(ValueOf(head, "node:Person", "Ada", "age"), "36");
}

// Runs `hook` (once) before the first conditional create of a name with the given prefix.
class HookStore final : public storage::ForwardingStore {
 public:
  HookStore(std::shared_ptr<storage::ObjectStore> inner, std::string prefix)
      : ForwardingStore(std::move(inner)), prefix_(std::move(prefix)) {}
  std::function<void()> hook;

  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    if (hook && name.starts_with(prefix_)) std::exchange(hook, nullptr)();
    return inner().PutIfAbsent(name, data);
  }

 private:
  std::string prefix_;
};

TEST(SchemaApplyTest, AWriterPublishingDuringTheApplyMakesItReadSetChanged) {
  auto memory = std::make_shared<storage::MemoryStore>();
  auto hooked = std::make_shared<HookStore>(memory, "__history/schemas/");
  storage::Runtime rt = storage::Runtime::ForTest(hooked, 1);
  std::unique_ptr<Graph> graph = std::move(*Graph::Init(rt, kSchema));
  // Another process publishes while the apply stages (right before the archive is written).
  std::unique_ptr<Graph> other = std::move(*Graph::Open(storage::Runtime::ForTest(memory, 2)));
  std::string rival;
  hooked->hook = [&] {
    Result<WriteResult> w = Insert(*other, "node:Company", {{"Acme", "Acme"}});
    OMNIGRAPH_CHECK(w.ok());
    rival = w->commit_id;
  };
  Result<SchemaApplyResult> applied = ApplySchema(*graph, R"(
node Person { name: String @key  age: I32?  email: String? }
node Company { name: String @key }
edge WorksAt: Person -> Company { role: String? }
)");
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), Code::kReadSetChanged) << applied.status().ToString();
  Snapshot head = *graph->SnapshotOfBranch("main");
  EXPECT_EQ(head.commit_id(), rival);
  EXPECT_EQ(head.catalog().FindNode("Person")->FindProperty("email"), nullptr);
  // Applied again against the new head, it lands and keeps the rival's row.
  Result<SchemaApplyResult> again = ApplySchema(*graph, R"(
node Person { name: String @key  age: I32?  email: String? }
node Company { name: String @key }
edge WorksAt: Person -> Company { role: String? }
)");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*graph->SnapshotOfBranch("main")->Table("node:Company"))->entity_count(), 1u);
}

// A schema apply is refused while any branch but main exists, with OmniGraph's message naming
// them (sorted), and writes nothing; once they are deleted it applies.
TEST(SchemaApplyTest, OpenBranchesRefuseTheApplyUntilDeleted) {
  Fixture f;
  ASSERT_TRUE(f.graph->CreateBranch("zeta", "main").ok());
  ASSERT_TRUE(f.graph->CreateBranch("feature/a", "main").ok());
  const std::string next = std::string(kSchema) + "node Tag { label: String @key }\n";
  const Snapshot before = f.Head();
  const storage::OpCounts start = f.store->Snapshot();
  Result<SchemaApplyResult> applied = ApplySchema(*f.graph, next);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), Code::kSchemaBoundary);
  EXPECT_EQ(applied.status().kind(), Kind::kConflict);
  EXPECT_EQ(applied.status().message(),
            "schema apply requires a graph with only main; found non-main branches: feature/a, "
            "zeta");
  EXPECT_EQ((f.store->Snapshot() - start).writes(), 0u);
  EXPECT_EQ(f.Head().state().seq, before.state().seq);
  // A no-op apply is refused too, as OmniGraph checks the branches before planning.
  EXPECT_EQ(ApplySchema(*f.graph, kSchema).status().code(), Code::kSchemaBoundary);
  ASSERT_TRUE(f.graph->DeleteBranch("zeta").ok());
  EXPECT_EQ(ApplySchema(*f.graph, next).status().message(),
            "schema apply requires a graph with only main; found non-main branches: feature/a");
  ASSERT_TRUE(f.graph->DeleteBranch("feature/a").ok());
  Result<SchemaApplyResult> now = ApplySchema(*f.graph, next);
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  EXPECT_TRUE(now->applied);
}

// Runs `hook` (once) after the first listing of a prefix has been answered.
class AfterListStore final : public storage::ForwardingStore {
 public:
  AfterListStore(std::shared_ptr<storage::ObjectStore> inner, std::string prefix)
      : ForwardingStore(std::move(inner)), prefix_(std::move(prefix)) {}
  std::function<void()> hook;

  Result<storage::ListPage> List(const storage::ListOptions& options) override {
    Result<storage::ListPage> page = inner().List(options);
    if (hook && options.prefix.starts_with(prefix_)) std::exchange(hook, nullptr)();
    return page;
  }

 private:
  std::string prefix_;
};

// A branch created by another process after the apply checked the branches, while it planned, is
// seen again when the apply publishes: refused, nothing published.
TEST(SchemaApplyTest, ABranchCreatedWhileTheApplyPlansRefusesItAtPublish) {
  auto memory = std::make_shared<storage::MemoryStore>();
  auto hooked = std::make_shared<AfterListStore>(memory, "_graph/names/");
  storage::Runtime rt = storage::Runtime::ForTest(hooked, 1);
  std::unique_ptr<Graph> graph = std::move(*Graph::Init(rt, kSchema));
  std::unique_ptr<Graph> other = std::move(*Graph::Open(storage::Runtime::ForTest(memory, 2)));
  const uint64_t seq = graph->SnapshotOfBranch("main")->state().seq;
  hooked->hook = [&] { OMNIGRAPH_CHECK(other->CreateBranch("late", "main").ok()); };
  Result<SchemaApplyResult> applied =
      ApplySchema(*graph, std::string(kSchema) + "node Tag { label: String @key }\n");
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().message(),
            "schema apply requires a graph with only main; found non-main branches: late");
  EXPECT_EQ(hooked->hook, nullptr);
  EXPECT_EQ(graph->SnapshotOfBranch("main")->state().seq, seq);
}

}  // namespace
}  // namespace omnigraph::engine

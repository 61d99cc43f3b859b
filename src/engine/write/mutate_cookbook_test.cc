// Every mutation query of the cookbooks (../shared/fixtures/cookbooks/*/queries/mutations.gq)
// runs against its schema with sample parameters, and its effect is checked row by row: node
// inserts first, then edge inserts between nodes that exist.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/write/mutate.h"
#include "query/exec/column_codec.h"
#include "query/parse/parser.h"
#include "schema/keys.h"
#include "storage/memory_store.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {
namespace {

using schema::Value;

std::string ReadFixture(const std::string& relative) {
  const char* root = std::getenv("OMNIGRAPH_SOURCE_DIR");
  std::string path = std::string(root ? root : OMNIGRAPH_SOURCE_DIR_FALLBACK) +
                     "/../shared/fixtures/cookbooks/" + relative;
  std::ifstream in(path);
  OMNIGRAPH_CHECK_MSG(in.good(), "cookbook fixture not found at " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A valid value of `type`, distinct per `n` where the type allows.
Value Sample(const schema::PropType& type, int n) {
  if (type.is_enum()) return Value::String(type.enum_values[n % type.enum_values.size()]);
  Value scalar;
  switch (type.scalar) {
    case schema::ScalarKind::kString:
    case schema::ScalarKind::kBlob: scalar = Value::String("sample-" + std::to_string(n)); break;
    case schema::ScalarKind::kBool: scalar = Value::Bool(n % 2 == 0); break;
    case schema::ScalarKind::kI32:
    case schema::ScalarKind::kI64:
    case schema::ScalarKind::kU32:
    case schema::ScalarKind::kU64: scalar = Value::Int(n); break;
    case schema::ScalarKind::kF32:
    case schema::ScalarKind::kF64: scalar = Value::Float(n + 0.5); break;
    case schema::ScalarKind::kDate: scalar = Value::Date(19000 + n); break;
    case schema::ScalarKind::kDateTime: scalar = Value::DateTime(1700000000000 + n); break;
    case schema::ScalarKind::kVector: {
      std::vector<Value> v(type.vector_dim, Value::Float(0.25));
      return Value::List(std::move(v));
    }
  }
  return type.list ? Value::List({scalar}) : scalar;
}

struct Expected {
  std::string table_key;
  std::string src, dst;                // Edges.
  std::map<std::string, Value> props;  // Assigned properties by name.
};

class CookbookMutations : public ::testing::TestWithParam<const char*> {};

TEST_P(CookbookMutations, EveryMutationQueryRunsAndHasItsEffect) {
  const std::string name = GetParam();
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 7);
  Result<std::unique_ptr<Graph>> g = Graph::Init(rt, ReadFixture(name + "/schema.pg"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Graph& graph = **g;
  const std::string source = ReadFixture(name + "/queries/mutations.gq");
  Result<query::QueryFile> file = query::ParseQueryFile(source);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  Snapshot s0 = *graph.SnapshotOfBranch("main");
  const schema::Catalog& catalog = s0.catalog();

  int counter = 0;
  auto seed_node = [&](const schema::TypeDef& type) -> std::string {
    std::vector<std::optional<Value>> values(type.properties.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (!type.properties[i].type.nullable) values[i] = Sample(type.properties[i].type, ++counter);
    }
    std::string id = "seeded-" + std::to_string(++counter);
    if (type.key() != nullptr) {
      id = *schema::DeriveNodeId(type, [&](const schema::PropertyDef& p) -> const Value* {
        for (size_t i = 0; i < values.size(); ++i) {
          if (type.properties[i].id == p.id) return &*values[i];
        }
        return nullptr;
      });
    }
    query::RowsBuilder b = *query::RowsBuilder::Make(type);
    OMNIGRAPH_CHECK(b.Append(id, "", "", values).ok());
    WriteRequest w;
    w.changes[type.table_key()] = TableChange{TableChange::Op::kUpsert, *b.Finish(), {}};
    Result<WriteResult> r = Write(graph, w);
    OMNIGRAPH_CHECK_MSG(r.ok(), r.status().ToString());
    return id;
  };

  int ran = 0;
  for (int pass = 0; pass < 2; ++pass) {  // 0: node inserts, 1: edge inserts.
    for (const query::QueryDecl& decl : file->queries) {
      ASSERT_TRUE(decl.is_mutation()) << decl.name.text;
      bool edge_query = false;
      for (const query::Mutation& m : decl.mutations) {
        const schema::TypeDef* t = catalog.FindTable(m.type.text);
        ASSERT_NE(t, nullptr) << decl.name.text;
        edge_query = edge_query || t->kind == schema::TypeKind::kEdge;
      }
      if (edge_query != (pass == 1)) continue;
      SCOPED_TRACE(decl.name.text);
      // Parameters from what each one is assigned to.
      std::map<std::string, Value> params;
      std::vector<Expected> expected;
      for (const query::Mutation& m : decl.mutations) {
        ASSERT_EQ(m.kind, query::MutationKind::kInsert) << "the cookbooks hold inserts only";
        const schema::TypeDef& type = *catalog.FindTable(m.type.text);
        Expected e{type.table_key(), "", "", {}};
        for (const query::Assignment& a : m.assignments) {
          ASSERT_EQ(a.value.kind, query::MatchValue::Kind::kVariable);
          const std::string& param = a.value.variable.text;
          Value v;
          if (type.kind == schema::TypeKind::kEdge &&
              (a.prop.text == "from" || a.prop.text == "to")) {
            const schema::TypeDef& node =
                *catalog.FindById(a.prop.text == "from" ? type.from.type_id : type.to.type_id);
            // A fresh endpoint per edge keeps every @card and @unique(src) satisfied.
            v = Value::String(seed_node(node));
            (a.prop.text == "from" ? e.src : e.dst) = v.string_value();
          } else {
            const schema::PropertyDef* p = type.FindProperty(a.prop.text);
            ASSERT_NE(p, nullptr);
            v = Sample(p->type, ++counter);
            e.props[p->name] = *query::CoerceValue(v, p->type);
          }
          params.insert_or_assign(param, v);
        }
        expected.push_back(std::move(e));
      }
      Result<MutationResult> r = Mutate(graph, source, decl.name.text, params);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_TRUE(r->commit.has_value());
      uint64_t nodes_expected = 0, edges_expected = 0;
      for (const Expected& e : expected) {
        (e.table_key.starts_with("edge:") ? edges_expected : nodes_expected) += 1;
      }
      EXPECT_EQ(r->affected_nodes, nodes_expected);
      EXPECT_EQ(r->affected_edges, edges_expected);
      // The committed snapshot holds each inserted row with its assigned values.
      Snapshot s = *graph.SnapshotAtCommit(*r->commit);
      for (const Expected& e : expected) {
        const schema::TypeDef& type = *s.catalog().FindByTableKey(e.table_key);
        std::shared_ptr<const table::TableVersion> t = *s.Table(e.table_key);
        int matches = 0;
        ASSERT_TRUE(t->Scan({}, [&](table::ColumnBatch b) -> Status {
                       for (uint64_t row = 0; row < b.num_rows(); ++row) {
                         bool all = true;
                         if (!e.src.empty()) {
                           all = all && b.FindColumn(table::kSrcFieldId)->StringAt(row) == e.src &&
                                 b.FindColumn(table::kDstFieldId)->StringAt(row) == e.dst;
                         }
                         for (const auto& [prop, value] : e.props) {
                           const schema::PropertyDef* p = type.FindProperty(prop);
                           all = all && query::ValueAt(*b.FindColumn(static_cast<uint32_t>(p->id)),
                                                       row) == value;
                         }
                         matches += all ? 1 : 0;
                       }
                       return Status::Ok();
                     }).ok());
        EXPECT_EQ(matches, 1) << e.table_key;
      }
      ++ran;
    }
  }
  EXPECT_EQ(ran, static_cast<int>(file->queries.size()));
}

INSTANTIATE_TEST_SUITE_P(Cookbooks, CookbookMutations,
                         ::testing::Values("industry-intel", "second-brain"),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace omnigraph::engine

// Golden query-execution tests: runs every tests/lang/*.qtest file (format in README.md) — a
// schema and a seed loaded into a fresh in-memory graph, then queries with parameters and the
// exact rows (or error) expected.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/read/query.h"
#include "engine/write/mutate.h"
#include "query/check/typecheck.h"
#include "query/exec/column_codec.h"
#include "query/parse/parser.h"
#include "query/plan/plan.h"
#include "schema/keys.h"
#include "schema/temporal.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

namespace fs = std::filesystem;

fs::path SourceDir() {
  const char* src = std::getenv("OMNIGRAPH_SOURCE_DIR");
  return src ? fs::path(src) : fs::path(OMNIGRAPH_CONFIGURED_SOURCE_DIR);
}

fs::path CookbooksDir() {
  if (const char* dir = std::getenv("OMNIGRAPH_COOKBOOKS_DIR")) return dir;
  return SourceDir() / ".." / "shared" / "fixtures" / "cookbooks";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// ---- Seed loading (the test fixture's own loader of OmniGraph's load format lines; to be replaced
// by the engine's load API). Node ids: data.id, else derived from @key. Edge ids: data.id, else
// "e<line>" with the line number zero-padded to 4 digits, so edge id order is seed order.

Result<schema::Value> JsonToValue(const Json& v, const schema::PropType& type) {
  if (v.is_null()) return schema::Value::Null();
  if (type.list || type.scalar == schema::ScalarKind::kVector) {
    if (!v.is_array()) return InvalidArgument("expected an array");
    schema::PropType element = type;
    element.list = false;
    element.nullable = false;
    if (type.scalar == schema::ScalarKind::kVector) element.scalar = schema::ScalarKind::kF32;
    std::vector<schema::Value> items;
    for (const Json& item : v) {
      OMNIGRAPH_ASSIGN_OR_RETURN(schema::Value x, JsonToValue(item, element));
      items.push_back(std::move(x));
    }
    return schema::Value::List(std::move(items));
  }
  if (v.is_boolean()) return schema::Value::Bool(v.get<bool>());
  if (v.is_number_unsigned()) return schema::Value::UInt(v.get<uint64_t>());
  if (v.is_number_integer()) {
    if (type.scalar == schema::ScalarKind::kDate) {
      return schema::Value::Date(static_cast<int32_t>(v.get<int64_t>()));
    }
    if (type.scalar == schema::ScalarKind::kDateTime)
      return schema::Value::DateTime(v.get<int64_t>());
    return schema::Value::Int(v.get<int64_t>());
  }
  if (v.is_number_float()) return schema::Value::Float(v.get<double>());
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (type.scalar == schema::ScalarKind::kDate) {
      std::optional<int32_t> d = schema::ParseDate(s);
      if (!d) return InvalidArgument("invalid Date literal '" + s + "'");
      return schema::Value::Date(*d);
    }
    if (type.scalar == schema::ScalarKind::kDateTime) {
      std::optional<int64_t> ms = schema::ParseDateTime(s);
      if (!ms) return InvalidArgument("invalid DateTime literal '" + s + "'");
      return schema::Value::DateTime(*ms);
    }
    if (schema::IsInteger(type.scalar)) {
      if (!s.empty() && s[0] == '-') return schema::Value::Int(std::stoll(s));
      return schema::Value::UInt(std::stoull(s));
    }
    return schema::Value::String(s);
  }
  return InvalidArgument("unsupported JSON value " + v.dump());
}

Status LoadSeed(Graph& graph, const std::string& seed) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot head, graph.SnapshotOfBranch("main"));
  const schema::Catalog& catalog = head.catalog();
  std::map<std::string, query::RowsBuilder> builders;
  std::istringstream in(seed);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (Trim(line).empty()) continue;
    const std::string where = "seed line " + std::to_string(n) + ": ";
    Result<Json> parsed = ParseJson(line, "seed line");
    if (!parsed.ok()) return InvalidArgument(where + parsed.status().message());
    const Json& obj = *parsed;
    const bool is_edge = obj.contains("edge");
    const schema::TypeDef* type = is_edge ? catalog.FindEdge(obj["edge"].get<std::string>())
                                          : catalog.FindNode(obj["type"].get<std::string>());
    if (type == nullptr) return InvalidArgument(where + "unknown type");
    Json data = obj.value("data", Json::object());
    std::vector<std::optional<schema::Value>> values(type->properties.size());
    for (size_t i = 0; i < type->properties.size(); ++i) {
      auto it = data.find(type->properties[i].name);
      if (it == data.end()) continue;
      Result<schema::Value> v = JsonToValue(*it, type->properties[i].type);
      if (!v.ok())
        return InvalidArgument(where + type->properties[i].name + ": " + v.status().message());
      values[i] = *v;
    }
    std::string id;
    if (data.contains("id")) {
      id = data["id"].get<std::string>();
    } else if (is_edge) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "e%04d", n);
      id = buf;
    } else {
      Result<std::string> derived =
          schema::DeriveNodeId(*type, [&](const schema::PropertyDef& p) -> const schema::Value* {
            for (size_t i = 0; i < type->properties.size(); ++i) {
              if (type->properties[i].id == p.id && values[i]) return &*values[i];
            }
            return nullptr;
          });
      if (!derived.ok()) return InvalidArgument(where + derived.status().message());
      id = *derived;
    }
    auto it = builders.find(type->table_key());
    if (it == builders.end()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(query::RowsBuilder b, query::RowsBuilder::Make(*type));
      it = builders.emplace(type->table_key(), std::move(b)).first;
    }
    std::string src = is_edge ? obj["from"].get<std::string>() : "";
    std::string dst = is_edge ? obj["to"].get<std::string>() : "";
    Status st = it->second.Append(id, src, dst, values);
    if (!st.ok()) return InvalidArgument(where + st.message());
  }
  WriteRequest w;
  for (auto& [key, builder] : builders) {
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch batch, builder.Finish());
    w.changes[key] = TableChange{TableChange::Op::kAppend, std::move(batch), {}};
  }
  if (w.changes.empty()) return Status::Ok();
  return Write(graph, w).status();
}

// ---- The .qtest format.

struct Case {
  std::string name;
  std::string schema;
  std::string seed;
  int line = 0;
  std::string query;
  std::string run;  // Query name; empty = the first.
  std::string params = "{}";
  std::optional<std::string> rows;
  std::optional<std::string> error;
  std::optional<std::string> plan;      // The rendered plan (query/plan/plan.h RenderPlan).
  std::optional<std::string> warnings;  // The envelope's warnings, one a line.
  // A mutation run first, with the case's params, on a private copy of the seeded graph; the
  // query then runs with no params. `affected` is "nodes=N edges=M".
  std::optional<std::string> mutate;
  std::optional<std::string> affected;
};

struct QTestFile {
  std::map<std::string, std::string> schemas;
  std::map<std::string, std::string> seeds;
  std::vector<Case> cases;
};

std::string Option(const std::string& header, const std::string& key) {
  std::istringstream in(header);
  std::string word;
  while (in >> word) {
    if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
  }
  return "";
}

QTestFile ParseQTest(const std::string& text) {
  QTestFile out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  std::string* body = nullptr;
  Case* current = nullptr;
  std::string last_schema, last_seed;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("=== ", 0) == 0) {
      std::istringstream h(line.substr(4));
      std::string kind, name;
      h >> kind >> name;
      current = nullptr;
      const std::string file = Option(line, "file");
      const std::string cookbook = Option(line, "cookbook");
      if (kind == "schema") {
        out.schemas[name] = !file.empty()       ? ReadFile(SourceDir() / "tests" / "lang" / file)
                            : !cookbook.empty() ? ReadFile(CookbooksDir() / cookbook / "schema.pg")
                                                : "";
        body = file.empty() && cookbook.empty() ? &out.schemas[name] : nullptr;
        last_schema = name;
      } else if (kind == "seed") {
        out.seeds[name] =
            cookbook.empty() ? "" : ReadFile(CookbooksDir() / cookbook / "seed.jsonl");
        body = cookbook.empty() ? &out.seeds[name] : nullptr;
        last_seed = name;
      } else if (kind == "case") {
        Case c;
        c.name = name;
        c.line = n;
        c.schema = Option(line, "schema");
        if (c.schema.empty()) c.schema = last_schema;
        c.seed = Option(line, "seed");
        if (c.seed.empty()) c.seed = last_seed;
        out.cases.push_back(std::move(c));
        current = &out.cases.back();
        body = nullptr;
      } else {
        ADD_FAILURE() << "line " << n << ": unknown block " << kind;
      }
      continue;
    }
    if (line.rfind("--- ", 0) == 0 && current != nullptr) {
      std::string section = Trim(line.substr(4));
      std::string word = section.substr(0, section.find(' '));
      if (word == "query") {
        const std::string file = Option(section, "file");
        if (!file.empty()) {
          current->query = ReadFile(CookbooksDir() / file);
          if (current->query.empty()) ADD_FAILURE() << "line " << n << ": cannot read " << file;
          body = nullptr;
        } else {
          body = &current->query;
        }
      } else if (word == "run") {
        current->run = Trim(section.substr(3));
        body = nullptr;
      } else if (word == "params") {
        current->params.clear();
        body = &current->params;
      } else if (word == "rows") {
        current->rows.emplace();
        body = &*current->rows;
      } else if (word == "error") {
        current->error.emplace();
        body = &*current->error;
      } else if (word == "plan") {
        current->plan.emplace();
        body = &*current->plan;
      } else if (word == "warnings") {
        current->warnings.emplace();
        body = &*current->warnings;
      } else if (word == "mutate") {
        current->mutate.emplace();
        body = &*current->mutate;
      } else if (word == "affected") {
        current->affected.emplace();
        body = &*current->affected;
      } else {
        ADD_FAILURE() << "line " << n << ": unknown section " << section;
      }
      continue;
    }
    if (!line.empty() && line[0] == '#') continue;  // A comment, anywhere.
    if (body == nullptr) {
      if (!Trim(line).empty()) {
        ADD_FAILURE() << "line " << n << ": text outside a section: " << line;
      }
      continue;
    }
    *body += line + "\n";
  }
  return out;
}

// Plans the query `run` of the case against `catalog` and compares the rendered plan with the
// case's `--- plan` section (every line; leading and trailing blank lines aside).
void ExpectPlan(const Case& c, const std::string& run, const schema::Catalog& catalog) {
  Result<query::QueryFile> qf = query::ParseQueryFile(c.query);
  ASSERT_TRUE(qf.ok()) << qf.status().ToString();
  Result<const query::QueryDecl*> decl = query::SelectQuery(*qf, run);
  ASSERT_TRUE(decl.ok()) << decl.status().ToString();
  Result<query::CheckedQuery> checked = query::TypecheckQuery(catalog, **decl);
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  Result<query::Plan> plan = query::PlanQuery(*checked);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const std::string actual = query::RenderPlan(*plan);
  EXPECT_EQ(Trim(actual), Trim(*c.plan)) << "actual plan:\n" << actual;
}

class ExecGoldenTest : public testing::TestWithParam<std::string> {};

// One ExecCache per graph: graphs made by the same seeded runtime share an identity domain, the
// cache's scope, so two schemas of one file would otherwise read each other's table images.
void RunCase(QTestFile& file, const Case& c, std::map<std::string, std::unique_ptr<Graph>>& graphs,
             std::map<std::string, query::ExecCache>& caches);

TEST_P(ExecGoldenTest, RowsMatchTheGoldenFile) {
  fs::path path = SourceDir() / "tests" / "lang" / (GetParam() + ".qtest");
  QTestFile file = ParseQTest(ReadFile(path));
  ASSERT_FALSE(file.cases.empty()) << path;
  std::map<std::string, std::unique_ptr<Graph>> graphs;  // By "schema|seed".
  std::map<std::string, query::ExecCache> caches;        // Likewise.
  for (const Case& c : file.cases) {
    SCOPED_TRACE(path.filename().string() + ":" + std::to_string(c.line) + " case " + c.name);
    RunCase(file, c, graphs, caches);
  }
}

void RunCase(QTestFile& file, const Case& c, std::map<std::string, std::unique_ptr<Graph>>& graphs,
             std::map<std::string, query::ExecCache>& caches) {
  {
    // A case that mutates gets a graph of its own (its key is unique to the case).
    const std::string key = c.schema + "|" + c.seed + (c.mutate ? "|" + c.name : "");
    if (!graphs.count(key)) {
      ASSERT_TRUE(file.schemas.count(c.schema)) << "unknown schema " << c.schema;
      storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
      Result<std::unique_ptr<Graph>> g = Graph::Init(rt, file.schemas[c.schema]);
      ASSERT_TRUE(g.ok()) << g.status().ToString();
      if (!c.seed.empty()) {
        Status st = LoadSeed(**g, file.seeds[c.seed]);
        ASSERT_TRUE(st.ok()) << st.ToString();
      }
      graphs[key] = std::move(*g);
    }
    Result<Snapshot> snap = graphs[key]->SnapshotOfBranch("main");
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    Result<Json> params = ParseJson(c.params, "params");
    ASSERT_TRUE(params.ok()) << params.status().ToString();
    if (c.mutate) {
      MutationOptions mopts;
      mopts.now_ms = 1767225600000;
      Result<MutationResult> m = Mutate(*graphs[key], *c.mutate, "", *params, mopts);
      if (c.error && !c.rows) {
        ASSERT_FALSE(m.ok()) << "expected the mutation to fail";
        EXPECT_NE(m.status().ToString().find(Trim(*c.error)), std::string::npos)
            << "actual error: " << m.status().ToString();
        return;
      }
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      EXPECT_EQ("nodes=" + std::to_string(m->affected_nodes) +
                    " edges=" + std::to_string(m->affected_edges),
                Trim(c.affected.value_or("")));
      snap = graphs[key]->SnapshotOfBranch("main");
      ASSERT_TRUE(snap.ok()) << snap.status().ToString();
      *params = Json::object();
    }
    std::string run = c.run;
    if (run.empty()) {
      // A `show all;` source has no query to name; a source that does not parse fails in
      // RunQuery, with the error the case expects.
      Result<query::QueryFile> qf = query::ParseQueryFile(c.query);
      if (qf.ok() && !qf->queries.empty()) run = qf->queries[0].name.text;
    }
    if (c.plan) ExpectPlan(c, run, snap->catalog());
    RunOptions options;
    options.now_ms = 1767225600000;  // 2026-01-01T00:00:00Z
    options.cache = &caches[key];
    Result<OrderedJson> out = RunQuery(*snap, c.query, run, *params, options);
    if (c.error) {
      ASSERT_FALSE(out.ok()) << "expected an error, got " << (out.ok() ? out->dump() : "");
      EXPECT_NE(out.status().ToString().find(Trim(*c.error)), std::string::npos)
          << "actual error: " << out.status().ToString();
      return;
    }
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_TRUE(c.rows.has_value()) << "a case needs --- rows or --- error";
    Result<OrderedJson> expected = ParseOrderedJson(*c.rows, "rows");
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    EXPECT_EQ((*out)["rows"], *expected) << "actual rows:\n" << (*out)["rows"].dump(1);
    EXPECT_EQ((*out)["row_count"].get<size_t>(), expected->size());
    std::string warnings;
    if (out->contains("warnings")) {
      for (const auto& w : (*out)["warnings"]) warnings += w.get<std::string>() + "\n";
    }
    EXPECT_EQ(Trim(warnings), Trim(c.warnings.value_or(""))) << "actual warnings:\n" << warnings;
  }
}

std::vector<std::string> QTestFiles() {
  std::vector<std::string> names;
  fs::path dir = SourceDir() / "tests" / "lang";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".qtest") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Exec, ExecGoldenTest, testing::ValuesIn(QTestFiles()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

// A value of each parameter type, so every read query can run (results may be empty).
Json SampleParams(const query::CheckedQuery& checked) {
  Json params = Json::object();
  for (size_t i = 0; i < checked.decl->params.size(); ++i) {
    const schema::PropType& t = checked.param_types[i];
    const std::string& name = checked.decl->params[i].name.text;
    if (t.nullable) continue;
    Json v;
    switch (t.scalar) {
      case schema::ScalarKind::kBool: v = true; break;
      case schema::ScalarKind::kI32:
      case schema::ScalarKind::kI64:
      case schema::ScalarKind::kU32:
      case schema::ScalarKind::kU64:
      case schema::ScalarKind::kF32:
      case schema::ScalarKind::kF64: v = 1; break;
      case schema::ScalarKind::kDate: v = "2026-01-01"; break;
      case schema::ScalarKind::kDateTime: v = "2026-01-01T00:00:00Z"; break;
      case schema::ScalarKind::kVector:
        v = Json::array();
        for (uint32_t d = 0; d < t.vector_dim; ++d) v.push_back(0.5);
        break;
      default: v = t.is_enum() ? Json(t.enum_values[0]) : Json("x"); break;
    }
    if (t.list && t.scalar != schema::ScalarKind::kVector) v = Json::array({v});
    params[name] = v;
  }
  return params;
}

bool HasNearest(const query::Expr& e) {
  if (e.kind == query::ExprKind::kNearest) return true;
  for (const query::Expr& a : e.args) {
    if (HasNearest(a)) return true;
  }
  return false;
}

// Whether the query ranks by `nearest` (alone or inside rrf()); with a String query that needs the
// property's embedding provider, which this test does not configure.
bool UsesNearest(const query::QueryDecl& decl) {
  for (const query::Ordering& o : decl.orderings) {
    if (HasNearest(o.expr)) return true;
  }
  for (const query::Projection& p : decl.projections) {
    if (HasNearest(p.expr)) return true;
  }
  return false;
}

// Every read query of every cookbook runs on its loaded seed: everything succeeds — the
// full-text forms included — except a nearest over a String query (alone or fused by rrf),
// which would embed the text through an embedding provider, and none is configured (no key).
TEST(CookbookExecTest, EveryReadQueryRunsOnItsSeed) {
  for (const char* v : {"OMNIGRAPH_EMBEDDINGS_MOCK", "OMNIGRAPH_EMBED_PROVIDER",
                        "OPENROUTER_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"}) {
    ::unsetenv(v);
  }
  fs::path root = CookbooksDir();
  ASSERT_TRUE(fs::exists(root)) << "cookbook fixtures not found at " << root;
  int cookbooks = 0, ran = 0, unsupported = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!fs::exists(dir.path() / "schema.pg")) continue;
    ++cookbooks;
    SCOPED_TRACE(dir.path().filename().string());
    storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
    Result<std::unique_ptr<Graph>> g = Graph::Init(rt, ReadFile(dir.path() / "schema.pg"));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    Status loaded = LoadSeed(**g, ReadFile(dir.path() / "seed.jsonl"));
    ASSERT_TRUE(loaded.ok()) << loaded.ToString();
    Snapshot snap = *(*g)->SnapshotOfBranch("main");
    query::ExecCache cache;
    for (const auto& q : fs::directory_iterator(dir.path() / "queries")) {
      std::string source = ReadFile(q.path());
      Result<query::QueryFile> file = query::ParseQueryFile(source);
      ASSERT_TRUE(file.ok()) << q.path() << ": " << file.status().ToString();
      for (const query::QueryDecl& decl : file->queries) {
        if (decl.is_mutation()) continue;
        SCOPED_TRACE(q.path().filename().string() + " " + decl.name.text);
        Result<query::CheckedQuery> checked = query::TypecheckQuery(snap.catalog(), decl);
        ASSERT_TRUE(checked.ok()) << checked.status().ToString();
        RunOptions opt;
        opt.cache = &cache;
        opt.now_ms = 1767225600000;
        Result<query::QueryResult> r = RunChecked(snap, *checked, SampleParams(*checked), opt);
        if (UsesNearest(decl) && !r.ok()) {
          // No embedding provider here (engine_embed_test runs related_chunks with the mock).
          EXPECT_EQ(r.status().code(), Code::kConfiguration) << r.status().ToString();
          EXPECT_NE(r.status().message().find("OPENROUTER_API_KEY or OPENAI_API_KEY is required"),
                    std::string::npos)
              << r.status().ToString();
          ++unsupported;
        } else {
          EXPECT_TRUE(r.ok()) << r.status().ToString();
          ++ran;
        }
      }
    }
  }
  EXPECT_EQ(cookbooks, 2);
  EXPECT_GT(ran, 100);
  std::cout << "cookbook read queries run: " << ran
            << ", nearest over text (no embedding provider configured): " << unsupported << "\n";
}

// Full-text search over a version of several fragments (docs/design/fulltext.md): the index
// covers every fragment, a phrase matches in each, BM25 statistics are the whole version's, the
// index is stored once as a derived object (by the load), and a fresh process reads it instead of
// rebuilding.
TEST(FullTextExecTest, PhrasesMatchAcrossFragmentsAndTheIndexIsStoredOnce) {
  auto memory = std::make_shared<storage::MemoryStore>();
  auto counting = std::make_shared<storage::CountingStore>(memory);
  Result<std::unique_ptr<Graph>> g =
      Graph::Init(storage::Runtime::ForTest(counting, 1),
                  "node Doc { slug: String @key  body: String @index }\n");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const char* loads[] = {R"({"type":"Doc","data":{"slug":"a","body":"The quick brown fox"}})",
                         R"({"type":"Doc","data":{"slug":"b","body":"quick, BROWN dogs"}})",
                         R"({"type":"Doc","data":{"slug":"c","body":"brown quick hares"}})"};
  for (const char* l : loads) {
    ASSERT_TRUE(Load(**g, "main", std::string(l) + "\n", LoadMode::kAppend).ok());
  }
  const std::string q =
      "query p($q: String) { match { $d: Doc  match_text($d.body, $q) } return { $d.slug } "
      "order { $d.slug } }\n"
      "query s($q: String) { match { $d: Doc } return { $d.slug, bm25($d.body, $q) as s } "
      "order { bm25($d.body, $q) } limit 1 }";
  auto run = [&](Graph& graph, const std::string& name, const std::string& text) {
    Result<Snapshot> snap = graph.SnapshotOfBranch("main");
    EXPECT_TRUE(snap.ok());
    Result<OrderedJson> out = RunQuery(*snap, q, name, Json{{"q", text}});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? (*out)["rows"].dump() : std::string();
  };
  const storage::OpCounts before = counting->Snapshot();
  // a (first fragment) and b (second) hold the phrase; c holds both words in the other order.
  EXPECT_EQ(run(**g, "p", "Quick brown"), R"([{"d.slug":"a"},{"d.slug":"b"}])");
  // The last load stored fts.2 (engine/write/derived_indexes.h); the query reads it and stores
  // nothing.
  EXPECT_EQ(counting->Snapshot().put_if_absent - before.put_if_absent, 0u);
  // "dog": df 1 of N = 3, idf = ln(1 + 2.5/1.5) = 0.980829; b has 3 terms, avgdl 10/3:
  // 0.980829 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 3 / (10/3))) = 1.022666.
  Json top = Json::parse(run(**g, "s", "dog"));
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0]["d.slug"], "b");
  EXPECT_NEAR(top[0]["s"].get<double>(), 1.022666, 1e-6);
  EXPECT_EQ(counting->Snapshot().put_if_absent - before.put_if_absent, 0u);
  // A fresh process reads the stored index: it writes nothing.
  auto counting2 = std::make_shared<storage::CountingStore>(memory);
  Result<std::unique_ptr<Graph>> g2 = Graph::Open(storage::Runtime::ForTest(counting2, 2));
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_EQ(run(**g2, "p", "quick brown"), R"([{"d.slug":"a"},{"d.slug":"b"}])");
  EXPECT_EQ(counting2->Snapshot().writes(), 0u) << counting2->Snapshot().ToString();
}

TEST(ExecGoldenFiles, TheDirectoryHasGoldenFiles) { EXPECT_GE(QTestFiles().size(), 1u); }

}  // namespace
}  // namespace omnigraph::engine

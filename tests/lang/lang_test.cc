// Golden language tests: runs every tests/lang/*.test file (format in tests/lang/README.md) and
// checks every cookbook query (../shared/fixtures/cookbooks/*/queries/*.gq) against its schema.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "query/check/lint.h"
#include "query/check/typecheck.h"
#include "query/parse/parser.h"
#include "schema/catalog.h"
#include "schema/identity.h"

namespace omnigraph::query {
namespace {

namespace fs = std::filesystem;

// The repository root: OMNIGRAPH_SOURCE_DIR when ctest runs the test, else the directory the
// build was configured from (test discovery runs the binary without the environment).
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

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// One `=== case` block.
struct Case {
  std::string name;
  std::string schema;
  int line = 0;  // Of the header, for messages.
  std::string query;
  std::optional<std::vector<std::string>> errors;  // `--- errors`
  bool expect_ok = false;                          // `--- ok`
  std::optional<std::string> lint;                 // `--- lint`
};

struct TestFile {
  std::map<std::string, std::string> schemas;  // name -> source
  std::vector<Case> cases;
};

// Parses the block structure described in README.md. Fails the test on a malformed file.
TestFile ParseTestFile(const std::string& text) {
  TestFile out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  std::string* body = nullptr;  // Where section lines go.
  std::vector<std::string>* lines = nullptr;
  Case* current = nullptr;
  std::string schema_name;
  while (std::getline(in, line)) {
    ++n;
    if (StartsWith(line, "=== ")) {
      std::istringstream words(line.substr(4));
      std::string kind, name, opt;
      words >> kind >> name;
      body = nullptr;
      lines = nullptr;
      if (kind == "schema") {
        schema_name = name;
        out.schemas[name] = "";
        body = &out.schemas[name];
        current = nullptr;
        while (words >> opt) {
          if (StartsWith(opt, "file=")) {
            fs::path p = SourceDir() / "tests" / "lang" / opt.substr(5);
            EXPECT_TRUE(fs::exists(p)) << "schema file missing: " << p;
            out.schemas[name] = ReadFile(p);
            body = nullptr;
          }
          if (StartsWith(opt, "cookbook=")) {
            fs::path p = CookbooksDir() / opt.substr(9) / "schema.pg";
            EXPECT_TRUE(fs::exists(p)) << "cookbook schema missing: " << p;
            out.schemas[name] = ReadFile(p);
            body = nullptr;
          }
        }
      } else if (kind == "case") {
        out.cases.push_back(Case{name, schema_name, n, "", std::nullopt, false, std::nullopt});
        current = &out.cases.back();
        while (words >> opt) {
          if (StartsWith(opt, "schema=")) current->schema = opt.substr(7);
        }
      } else {
        ADD_FAILURE() << "line " << n << ": unknown block kind '" << kind << "'";
      }
      continue;
    }
    if (StartsWith(line, "--- ")) {
      std::string section = Trim(line.substr(4));
      if (current == nullptr) {
        ADD_FAILURE() << "line " << n << ": section outside a case";
        continue;
      }
      body = nullptr;
      lines = nullptr;
      if (section == "query") {
        body = &current->query;
      } else if (section == "errors") {
        current->errors.emplace();
        lines = &*current->errors;
      } else if (section == "ok") {
        current->expect_ok = true;
      } else if (section == "lint") {
        current->lint.emplace();
        body = &*current->lint;
      } else {
        ADD_FAILURE() << "line " << n << ": unknown section '" << section << "'";
      }
      continue;
    }
    if (body != nullptr) {
      *body += line + "\n";
    } else if (lines != nullptr) {
      if (!Trim(line).empty()) lines->push_back(line);
    } else if (!Trim(line).empty() && !StartsWith(line, "#")) {
      ADD_FAILURE() << "line " << n << ": text outside a section: " << line;
    }
  }
  return out;
}

// "<query> <line>:<column> <CODE>: <message>" and, when the diagnostic has one, its fix line.
void AppendDiagnostic(const std::string& query, const Diagnostic& d, std::vector<std::string>* out,
                      std::vector<std::string>* fixes) {
  out->push_back(query + " " + std::to_string(d.span.begin.line) + ":" +
                 std::to_string(d.span.begin.column) + " " + d.CodedMessage());
  fixes->push_back(d.fix);
}

// Runs the parser and the typechecker over a case's query text.
void Diagnose(const schema::Catalog& catalog, const std::string& source,
              std::vector<std::string>* out, std::vector<std::string>* fixes) {
  ParseOutcome parsed = ParseQueries(source);
  if (parsed.error) {
    AppendDiagnostic("-", *parsed.error, out, fixes);
    return;
  }
  for (const QueryDecl& q : parsed.file->queries) {
    QueryCheck check = CheckQuery(catalog, q);
    if (check.error) AppendDiagnostic(q.name.text, *check.error, out, fixes);
  }
}

void RunCase(const schema::Catalog& catalog, const Case& c) {
  std::vector<std::string> actual, fixes;
  Diagnose(catalog, c.query, &actual, &fixes);
  std::string printed;
  for (size_t i = 0; i < actual.size(); ++i) {
    printed += actual[i] + "\n";
    if (!fixes[i].empty()) printed += "  fix: " + fixes[i] + "\n";
  }
  if (c.expect_ok) {
    EXPECT_TRUE(actual.empty()) << "expected no diagnostics, got:\n" << printed;
  }
  if (c.errors) {
    // Expected lines: diagnostics, each optionally followed by "  fix: ..." (checked when given).
    std::vector<std::string> expected;
    std::map<size_t, std::string> expected_fixes;
    for (const std::string& l : *c.errors) {
      if (StartsWith(Trim(l), "fix:") && !expected.empty()) {
        expected_fixes[expected.size() - 1] = Trim(Trim(l).substr(4));
      } else {
        expected.push_back(Trim(l));
      }
    }
    EXPECT_EQ(actual, expected) << "actual diagnostics:\n" << printed;
    for (const auto& [index, fix] : expected_fixes) {
      if (index < fixes.size()) {
        EXPECT_EQ(fixes[index], fix) << "fix of: " << expected[index];
      }
    }
  }
  if (c.lint) {
    OrderedJson report = LintQuerySource(catalog, c.query).ToJson();
    auto expected = ParseOrderedJson(*c.lint, "expected lint JSON");
    if (!expected.ok()) {
      ADD_FAILURE() << expected.status().ToString() << "\nactual lint JSON:\n"
                    << report.dump(2) << "\n";
      return;
    }
    EXPECT_EQ(Json::parse(report.dump()), Json::parse(expected->dump())) << "actual lint JSON:\n"
                                                                         << report.dump(2) << "\n";
  }
  EXPECT_TRUE(c.expect_ok || c.errors || c.lint) << "case has no expectation";
}

class GoldenTest : public testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, DiagnosticsAndLintMatchTheGoldenFile) {
  fs::path path = SourceDir() / "tests" / "lang" / (GetParam() + ".test");
  ASSERT_TRUE(fs::exists(path)) << path;
  TestFile file = ParseTestFile(ReadFile(path));
  ASSERT_FALSE(file.cases.empty()) << path;
  std::map<std::string, schema::Catalog> catalogs;
  for (const auto& [name, source] : file.schemas) {
    auto ir = schema::AcceptInitial(source);
    ASSERT_TRUE(ir.ok()) << "schema " << name << ": " << ir.status().ToString();
    auto catalog = schema::Catalog::Build(std::move(*ir));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalogs.emplace(name, std::move(*catalog));
  }
  for (const Case& c : file.cases) {
    SCOPED_TRACE(path.filename().string() + ":" + std::to_string(c.line) + " case " + c.name);
    auto it = catalogs.find(c.schema);
    ASSERT_NE(it, catalogs.end()) << "unknown schema '" << c.schema << "'";
    RunCase(it->second, c);
  }
}

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> names;
  fs::path dir = SourceDir() / "tests" / "lang";
  if (fs::is_directory(dir)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".test") names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Lang, GoldenTest, testing::ValuesIn(GoldenFiles()),
                         [](const testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(GoldenFilesTest, TheGoldenDirectoryHasTestFiles) {
  EXPECT_GE(GoldenFiles().size(), 5u) << "no .test files under " << SourceDir() / "tests/lang";
}

TEST(CookbookQueriesTest, EveryCookbookQueryParsesAndTypechecksAgainstItsSchema) {
  fs::path dir = CookbooksDir();
  ASSERT_TRUE(fs::is_directory(dir))
      << "cookbook fixtures not found at " << dir << " (set OMNIGRAPH_COOKBOOKS_DIR)";
  size_t cookbooks = 0, files = 0, queries = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    fs::path schema_path = entry.path() / "schema.pg";
    if (!fs::exists(schema_path)) continue;
    ++cookbooks;
    SCOPED_TRACE(schema_path.string());
    auto ir = schema::AcceptInitial(ReadFile(schema_path));
    ASSERT_TRUE(ir.ok()) << ir.status().ToString();
    auto catalog = schema::Catalog::Build(std::move(*ir));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    for (const auto& q : fs::directory_iterator(entry.path() / "queries")) {
      if (q.path().extension() != ".gq") continue;
      ++files;
      SCOPED_TRACE(q.path().string());
      std::string source = ReadFile(q.path());
      auto file = ParseQueryFile(source);
      ASSERT_TRUE(file.ok()) << file.status().ToString();
      EXPECT_FALSE(file->queries.empty());
      for (const QueryDecl& decl : file->queries) {
        ++queries;
        auto checked = TypecheckQuery(*catalog, decl);
        EXPECT_TRUE(checked.ok()) << decl.name.text << ": " << checked.status().ToString();
      }
      LintReport lint = LintQuerySource(*catalog, source);
      EXPECT_EQ(lint.error_count(), 0u) << lint.ToJson().dump(2);
    }
  }
  EXPECT_GE(cookbooks, 2u);
  EXPECT_GE(files, 16u);
  EXPECT_GE(queries, 200u);
}

}  // namespace
}  // namespace omnigraph::query

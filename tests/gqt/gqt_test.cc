// The GQT scenario corpus (docs/design/gqt.md): every case of ../shared/fixtures/gqt/cases runs
// on a fresh graph on the memory store and on the local store, and its status (pass, missing
// feature, deliberate difference, skipped by rule) must be the one tests/gqt/expected.tsv
// records, in either direction: a case that starts passing must be marked passing.
//
// One ctest entry per case (Gqt/CaseTest.StatusIsTheExpectedOne/<case>) and a summary that
// prints the table. OMNIGRAPH_GQT_CASES_DIR points elsewhere; OMNIGRAPH_GQT_REPORT=<file> writes
// each case's actual status and first failure there (for updating expected.tsv).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gqt_case.h"
#include "gqt_runner.h"

namespace omnigraph::gqt {
namespace {

namespace fs = std::filesystem;

fs::path SourceDir() {
  const char* src = std::getenv("OMNIGRAPH_SOURCE_DIR");
  return src ? fs::path(src) : fs::path(OMNIGRAPH_CONFIGURED_SOURCE_DIR);
}

fs::path CasesDir() {
  if (const char* dir = std::getenv("OMNIGRAPH_GQT_CASES_DIR")) return dir;
  return SourceDir() / ".." / "shared" / "fixtures" / "gqt" / "cases";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Case names: the path under cases/ without ".gqt" ("v2/planner/x").
std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  const fs::path root = CasesDir();
  if (!fs::is_directory(root)) return names;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".gqt") continue;
    std::string rel = fs::relative(entry.path(), root).generic_string();
    names.push_back(rel.substr(0, rel.size() - 4));
  }
  std::sort(names.begin(), names.end());
  return names;
}

struct ExpectedRow {
  std::string status;  // pass | missing:<feature> | differs:<decision> | skipped:<rule>
  std::string reason;
};

// tests/gqt/expected.tsv: `case<TAB>status[<TAB>reason]`, '#' comments.
std::map<std::string, ExpectedRow> ExpectedStatuses() {
  std::map<std::string, ExpectedRow> out;
  std::istringstream in(ReadFile(SourceDir() / "tests" / "gqt" / "expected.tsv"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string col; std::getline(ss, col, '\t');) cols.push_back(col);
    if (cols.size() < 2) continue;
    out[cols[0]] = ExpectedRow{cols[1], cols.size() > 2 ? cols[2] : ""};
  }
  return out;
}

struct Actual {
  std::string status;  // pass | fail | skipped:<rule> | refused
  std::string detail;  // The first failure, or why the runner refused the file.
  int dropped_planner_checks = 0;
};

Actual Evaluate(const std::string& name) {
  Actual out;
  ParsedCase parsed = ParseCase(ReadFile(CasesDir() / (name + ".gqt")));
  if (!parsed.value) return Actual{"refused", parsed.error, 0};
  const Case& c = *parsed.value;
  out.dropped_planner_checks = c.dropped_planner_checks;
  if (c.skip_rule) {
    out.status = "skipped:" + *c.skip_rule;
    return out;
  }
  static int scratch = 0;
  for (StoreKind kind : {StoreKind::kMemory, StoreKind::kLocal}) {
    const fs::path dir = fs::temp_directory_path() / ("omnigraph-gqt-" + std::to_string(getpid()) +
                                                      "-" + std::to_string(scratch++));
    fs::remove_all(dir);
    fs::create_directories(dir);
    RunOutcome r = RunCase(c, kind, dir.string());
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    if (!r.passed) {
      out.status = "fail";
      out.detail = std::string(StoreKindName(kind)) + " store: " + r.failure;
      return out;
    }
  }
  out.status = "pass";
  return out;
}

// Whether the actual status is the one recorded: a failure must be recorded as missing or
// differs, a pass as pass, a skip under the same rule.
bool Agrees(const Actual& actual, const std::string& expected) {
  if (actual.status == "fail") {
    return expected.rfind("missing:", 0) == 0 || expected.rfind("differs:", 0) == 0;
  }
  return actual.status == expected;
}

class CaseTest : public testing::TestWithParam<std::string> {};

TEST_P(CaseTest, StatusIsTheExpectedOne) {
  const std::string& name = GetParam();
  const std::map<std::string, ExpectedRow> expected = ExpectedStatuses();
  auto it = expected.find(name);
  ASSERT_NE(it, expected.end()) << name << " has no row in tests/gqt/expected.tsv";
  const Actual actual = Evaluate(name);
  EXPECT_TRUE(Agrees(actual, it->second.status))
      << name << ": expected.tsv says " << it->second.status << ", the run says " << actual.status
      << (actual.detail.empty() ? "" : "\n  " + actual.detail);
}

INSTANTIATE_TEST_SUITE_P(Gqt, CaseTest, testing::ValuesIn(CaseNames()),
                         [](const testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

// The category of a status for the table: "pass", "missing", "differs", "skipped".
std::string Category(const std::string& status) { return status.substr(0, status.find(':')); }

TEST(GqtSummaryTest, EveryCaseHasOneRowAndTheTableAddsUp) {
  const std::vector<std::string> names = CaseNames();
  ASSERT_GE(names.size(), 188u) << "the GQT corpus is not at " << CasesDir()
                                << " (set OMNIGRAPH_GQT_CASES_DIR)";
  const std::map<std::string, ExpectedRow> expected = ExpectedStatuses();
  for (const auto& [name, row] : expected) {
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), name))
        << "expected.tsv lists " << name << ", which is not in the corpus";
  }
  std::map<std::string, int> by_status, by_category;
  int dropped = 0, agree = 0;
  std::ofstream report;
  if (const char* path = std::getenv("OMNIGRAPH_GQT_REPORT")) report.open(path);
  for (const std::string& name : names) {
    const Actual actual = Evaluate(name);
    dropped += actual.dropped_planner_checks;
    auto it = expected.find(name);
    EXPECT_NE(it, expected.end()) << name << " has no row in tests/gqt/expected.tsv";
    if (report.is_open()) {
      std::string detail = actual.detail;
      for (size_t at = detail.find('\n'); at != std::string::npos; at = detail.find('\n', at)) {
        const bool next_failure = detail.compare(at, 3, "\n* ") == 0;
        detail.replace(at, next_failure ? 3 : 1, next_failure ? " || " : " ");
      }
      report << name << "\t" << actual.status << "\t" << detail << "\n";
    }
    if (it == expected.end()) continue;
    if (Agrees(actual, it->second.status)) ++agree;
    ++by_status[it->second.status];
    ++by_category[Category(it->second.status)];
  }
  std::cout << "GQT corpus: " << names.size() << " cases, " << agree
            << " with the status expected.tsv records\n";
  for (const char* category : {"pass", "missing", "differs", "skipped"}) {
    std::cout << "  " << category << ": " << by_category[category] << "\n";
    for (const auto& [status, n] : by_status) {
      if (Category(status) == category && status != category) {
        std::cout << "    " << status << ": " << n << "\n";
      }
    }
  }
  std::cout << "  planner checks dropped (expect plan, same as v1, set engine = v2, traversal "
               "header): "
            << dropped << "\n";
  EXPECT_EQ(agree, static_cast<int>(names.size()));
}

}  // namespace
}  // namespace omnigraph::gqt

// The GQT runner itself (docs/design/gqt.md): the format's sections and loops, the skip rules,
// and comparisons that fail when they should, so that a passing corpus case means something.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gqt_case.h"
#include "gqt_runner.h"

namespace omnigraph::gqt {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSetup = R"(# notes: a tiny graph
--- schema
node Person {
    name: String @key
    age: I32?
    score: F32?
    born: Date?
}

--- seed
{"type":"Person","data":{"name":"alice","age":30,"score":0.99,"born":"1990-05-01"}}
{"type":"Person","data":{"name":"bob"}}

)";

constexpr const char* kAllPeople = R"(--- query
query people() {
    match { $p: Person }
    return { $p.name, $p.age, $p.score, $p.born }
    order { $p.name }
}

)";

Case MustParse(const std::string& text) {
  ParsedCase parsed = ParseCase(text);
  EXPECT_TRUE(parsed.value.has_value()) << parsed.error;
  return parsed.value ? *parsed.value : Case{};
}

// Runs on both stores; the failure of the first that fails, or "" when both pass.
std::string RunBoth(const std::string& text) {
  Case c = MustParse(text);
  static int n = 0;
  for (StoreKind kind : {StoreKind::kMemory, StoreKind::kLocal}) {
    const fs::path dir =
        fs::temp_directory_path() /
        ("omnigraph-gqt-runner-" + std::to_string(getpid()) + "-" + std::to_string(n++));
    fs::create_directories(dir);
    RunOutcome r = RunCase(c, kind, dir.string());
    fs::remove_all(dir);
    if (!r.passed) return std::string(StoreKindName(kind)) + ": " + r.failure;
  }
  return "";
}

TEST(GqtFormatTest, LoopsExpandWithSubstitutionAndStepsKeepTheirTargets) {
  Case c = MustParse(std::string(kSetup) + R"(--- loop $i 1 3
--- mutate branch: b
query bump($n: I32) { update Person set { age: $n } where name = "alice" }
--- params
{"n": ${i}}
--- expect affected: nodes=1 edges=0
--- endloop
--- foreach $who x y
--- query
set engine = v2;
query q() { match { $p: Person } return { $p.name } }
--- expect unordered
{"p.name": "${who}"}
--- expect plan
scan Person as $p
--- endloop
--- restart
)");
  ASSERT_EQ(c.steps.size(), 5u);
  EXPECT_EQ(c.steps[0].branch, "b");
  EXPECT_EQ(*c.steps[0].params, "{\"n\": 1}\n");
  EXPECT_EQ(*c.steps[1].params, "{\"n\": 2}\n");
  EXPECT_EQ(c.steps[0].expects[0].kind, ExpectKind::kAffected);
  EXPECT_EQ(c.steps[0].expects[0].arg, "nodes=1 edges=0");
  EXPECT_EQ(c.steps[3].expects[0].lines[0], "{\"p.name\": \"y\"}");
  EXPECT_EQ(c.steps[2].body.find("set engine"), std::string::npos);
  EXPECT_EQ(c.steps[4].kind, StepKind::kRestart);
  // Two `set engine = v2;` lines and two `expect plan` sections.
  EXPECT_EQ(c.dropped_planner_checks, 4);
  EXPECT_FALSE(c.skip_rule.has_value());
}

TEST(GqtFormatTest, InternalsAreSkippedByRuleAndUnknownSectionsRefused) {
  EXPECT_EQ(MustParse(std::string(kSetup) + "--- seam\nat: x\n").skip_rule, "seam");
  EXPECT_EQ(MustParse(std::string(kSetup) + "--- load generate: v1 seed: 1 mode: append\n"
                                            "tables: []\n--- expect ok\n")
                .skip_rule,
            "generator");
  // A step of file headers alone runs (it checks them); the knobs it sets are ignored here.
  Case headers = MustParse(std::string(kSetup) +
                           "--- mutate\nset history_release_bytes = 2048;\n--- expect ok\n");
  EXPECT_FALSE(headers.skip_rule.has_value()) << *headers.skip_rule;
  ASSERT_FALSE(headers.steps.empty());
  EXPECT_TRUE(headers.steps.back().headers_only);
  EXPECT_EQ(
      MustParse(std::string(kSetup) + "--- query\nset engine = v1;\nquery q() {}\n").skip_rule,
      "engine-v1");
  ParsedCase unknown = ParseCase(std::string(kSetup) + "--- expect rows\n");
  EXPECT_FALSE(unknown.value.has_value());
  EXPECT_NE(unknown.error.find("line 14: unknown"), std::string::npos) << unknown.error;
  ParsedCase open_loop = ParseCase(std::string(kSetup) + "--- loop $i 0 2\n--- restart\n");
  EXPECT_NE(open_loop.error.find("without endloop"), std::string::npos) << open_loop.error;
}

TEST(GqtRunnerTest, TypedRowsMatchAndAMissingKeyIsNull) {
  EXPECT_EQ(RunBoth(std::string(kSetup) + kAllPeople + R"(--- expect ordered
{"p.name": "alice", "p.age": 30, "p.score": 0.99, "p.born": "1990-05-01"}
{"p.name": "bob"}
--- expect shape
p.name: String
p.age: I32?
p.score: F32?
p.born: Date?
)"),
            "");
}

TEST(GqtRunnerTest, ValuesOfAnotherTypeOrderOrKeyDoNotMatch) {
  const std::string people = std::string(kSetup) + kAllPeople;
  // An I32 column against a float expectation.
  EXPECT_NE(
      RunBoth(people + "--- expect unordered\n{\"p.name\": \"alice\", \"p.age\": 30.0, "
                       "\"p.score\": 0.99, \"p.born\": \"1990-05-01\"}\n{\"p.name\": \"bob\"}\n"),
      "");
  // A Date against another text, a key the result does not have, a null that is not.
  EXPECT_NE(
      RunBoth(people + "--- expect unordered\n{\"p.name\": \"alice\", \"p.age\": 30, "
                       "\"p.score\": 0.99, \"p.born\": \"1990-5-1\"}\n{\"p.name\": \"bob\"}\n"),
      "");
  EXPECT_NE(
      RunBoth(people + "--- expect unordered\n{\"p.name\": \"alice\", \"p.age\": 30, "
                       "\"p.score\": 0.99, \"p.born\": \"1990-05-01\"}\n{\"p.name\": \"bob\", "
                       "\"p.nick\": null}\n"),
      "");
  EXPECT_NE(RunBoth(people + "--- expect unordered\n{\"p.name\": \"alice\", \"p.score\": 0.99, "
                             "\"p.born\": \"1990-05-01\"}\n{\"p.name\": \"bob\"}\n"),
            "");
  // The right rows in the wrong order; unordered accepts them, ordered does not.
  const std::string swapped =
      "{\"p.name\": \"bob\"}\n{\"p.name\": \"alice\", \"p.age\": 30, \"p.score\": 0.99, "
      "\"p.born\": \"1990-05-01\"}\n";
  EXPECT_EQ(RunBoth(people + "--- expect unordered\n" + swapped), "");
  EXPECT_NE(RunBoth(people + "--- expect ordered\n" + swapped).find("rows differ"),
            std::string::npos);
  // A shape with the wrong nullability.
  EXPECT_NE(RunBoth(people + "--- expect shape\np.name: String\np.age: I32\np.score: F32?\n"
                             "p.born: Date?\n")
                .find("shape differs"),
            std::string::npos);
}

TEST(GqtRunnerTest, CountsErrorsAndRestartsAreChecked) {
  const std::string insert = R"(--- mutate
query add($n: String) { insert Person { name: $n } }
--- params
{"n": "carol"}
)";
  EXPECT_EQ(RunBoth(std::string(kSetup) + insert + "--- expect affected: nodes=1 edges=0\n"), "");
  EXPECT_NE(RunBoth(std::string(kSetup) + insert + "--- expect affected: nodes=2 edges=0\n")
                .find("expected affected: nodes=2 edges=0, got nodes=1 edges=0"),
            std::string::npos);
  EXPECT_NE(RunBoth(std::string(kSetup) + insert + "--- expect error: anything\n")
                .find("the step succeeded"),
            std::string::npos);
  // A write survives a restart on both stores; a query of a deleted branch fails as expected.
  EXPECT_EQ(RunBoth(std::string(kSetup) + insert + R"(--- restart
--- mutate
branch create b
--- expect ok
--- mutate
branch delete b
--- expect ok
--- query branch: b
query q() { match { $p: Person } return { $p.name } }
--- expect error: branch 'b' not found
--- query
query q() { match { $p: Person { name: "carol" } } return { $p.name } }
--- expect unordered
{"p.name": "carol"}
)"),
            "");
}

}  // namespace
}  // namespace omnigraph::gqt

// The GQT scenario format (docs/design/gqt.md): a parsed `.gqt` case, ready to run.
//
// ParseCase reads a file into a schema, a seed and a flat list of steps (loops expanded, `${v}`
// substituted), each step with its expectations. It refuses a file with a section or option it
// does not know (never skips it silently), and classifies a case that reaches into the
// reference's internals under one skip rule per section kind (SkipRule). Plain values.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace omnigraph::gqt {

enum class ExpectKind {
  kUnordered,  // Rows as a multiset.
  kOrdered,    // Rows in order.
  kShape,      // `col: Type[?]` lines.
  kOk,
  kAffected,  // arg "nodes=N edges=M".
  kOutcome,   // arg "fast_forward" | "merged" | "already_up_to_date".
  kError,     // arg: a fragment of the message.
  kPlan,      // Dropped: the reference planner's explain output.
  kSameAsV1,  // Dropped: a comparison between the reference's two planners.
};

struct Expect {
  ExpectKind kind = ExpectKind::kOk;
  std::string arg;
  std::vector<std::string> lines;  // Non-blank body lines.
  int line = 0;                    // Of the `--- expect` line.
};

// kSkipped: a step of a section kind skipped by rule (the case is not run).
enum class StepKind { kQuery, kMutate, kRestart, kSkipped };

struct Step {
  StepKind kind = StepKind::kQuery;
  std::string branch = "main";
  std::string body;  // `set engine = v2;` lines removed.
  // The body held only `set engine = v2;`: a session statement that is a no-op here (one planner).
  bool planner_switch_only = false;
  // The body held only file headers (`set ann_nprobes = 1;`): the reference keeps them for the
  // session; our headers apply to their own source, and every knob such a step sets is one we
  // ignore, so the step only checks that the headers are valid.
  bool headers_only = false;
  std::optional<std::string> params;  // A JSON object's text.
  std::vector<Expect> expects;
  int line = 0;
};

struct Case {
  std::string schema;
  std::string seed;
  std::vector<Step> steps;
  // Set when the case is skipped by rule: the rule's name (docs/design/gqt.md "Skip rules").
  std::optional<std::string> skip_rule;
  // Planner checks (`expect plan`, `expect same as v1`) and `set engine = v2;` lines dropped.
  int dropped_planner_checks = 0;
};

// Parses `text` (the file's contents). An error string (with the line) for a malformed file
// or an unknown section.
struct ParsedCase {
  std::optional<Case> value;
  std::string error;
};
ParsedCase ParseCase(const std::string& text);

}  // namespace omnigraph::gqt

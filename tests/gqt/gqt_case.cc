#include "gqt_case.h"

#include <sstream>

namespace omnigraph::gqt {
namespace {

struct Section {
  std::string header;  // After "--- ".
  std::vector<std::string> body;
  int line = 0;
};

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> Words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

Section Substitute(Section s, const std::string& var, const std::string& value) {
  const std::string token = "${" + var + "}";
  s.header = ReplaceAll(s.header, token, value);
  for (std::string& line : s.body) line = ReplaceAll(line, token, value);
  return s;
}

// Expands `loop $v a b` / `foreach $v x y ...` ... `endloop` in sections [begin, end).
bool Expand(const std::vector<Section>& in, size_t begin, size_t end, std::vector<Section>* out,
            std::string* error) {
  for (size_t i = begin; i < end; ++i) {
    const std::vector<std::string> words = Words(in[i].header);
    if (words.empty() || (words[0] != "loop" && words[0] != "foreach")) {
      if (!words.empty() && words[0] == "endloop") {
        *error = "line " + std::to_string(in[i].line) + ": endloop without a loop";
        return false;
      }
      out->push_back(in[i]);
      continue;
    }
    if (words.size() < 3 || words[1].size() < 2 || words[1][0] != '$' ||
        (words[0] == "loop" && words.size() != 4)) {
      *error = "line " + std::to_string(in[i].line) + ": malformed " + words[0];
      return false;
    }
    std::vector<std::string> values;
    if (words[0] == "loop") {
      for (long v = std::stol(words[2]); v < std::stol(words[3]); ++v) {
        values.push_back(std::to_string(v));
      }
    } else {
      values.assign(words.begin() + 2, words.end());
    }
    size_t depth = 1, close = i + 1;
    for (; close < end; ++close) {
      const std::vector<std::string> w = Words(in[close].header);
      if (!w.empty() && (w[0] == "loop" || w[0] == "foreach")) ++depth;
      if (!w.empty() && w[0] == "endloop" && --depth == 0) break;
    }
    if (close == end) {
      *error = "line " + std::to_string(in[i].line) + ": " + words[0] + " without endloop";
      return false;
    }
    for (const std::string& value : values) {
      std::vector<Section> body;
      for (size_t j = i + 1; j < close; ++j)
        body.push_back(Substitute(in[j], words[1].substr(1), value));
      if (!Expand(body, 0, body.size(), out, error)) return false;
    }
    i = close;
  }
  return true;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// Whether every non-blank line of `body` is a file header (`set x = v;`, `reset x;`).
bool HeadersOnly(const std::string& body) {
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) {
    const std::string t = Trim(line);
    if (!t.empty() && !StartsWith(t, "set ") && !StartsWith(t, "reset ")) return false;
  }
  return true;
}

// Removes the planner switch `set engine = v2;` and classifies the other session statements
// (`set engine = v1;` selects the reference's older planner: a skip rule).
std::string BodyWithoutSessionStatements(const std::vector<std::string>& lines, Case* c) {
  std::vector<std::string> kept;
  for (const std::string& line : lines) {
    const std::string t = Trim(line);
    if (t == "set engine = v2;") {
      ++c->dropped_planner_checks;
      continue;
    }
    if (t == "set engine = v1;" && !c->skip_rule) c->skip_rule = "engine-v1";
    kept.push_back(line);
  }
  return Joined(kept);
}

bool ParseExpect(const Section& s, Expect* e, std::string* error) {
  const std::string rest = Trim(s.header.substr(std::string("expect").size()));
  e->line = s.line;
  for (const std::string& l : s.body) {
    if (!Trim(l).empty()) e->lines.push_back(Trim(l));
  }
  static const std::pair<const char*, ExpectKind> kPlain[] = {
      {"unordered", ExpectKind::kUnordered}, {"ordered", ExpectKind::kOrdered},
      {"shape", ExpectKind::kShape},         {"ok", ExpectKind::kOk},
      {"plan", ExpectKind::kPlan},           {"same as v1", ExpectKind::kSameAsV1}};
  for (const auto& [word, kind] : kPlain) {
    if (rest == word) {
      e->kind = kind;
      return true;
    }
  }
  static const std::pair<const char*, ExpectKind> kWithArg[] = {
      {"affected:", ExpectKind::kAffected},
      {"outcome:", ExpectKind::kOutcome},
      {"error:", ExpectKind::kError}};
  for (const auto& [word, kind] : kWithArg) {
    if (StartsWith(rest, word)) {
      e->kind = kind;
      e->arg = Trim(rest.substr(std::string(word).size()));
      return true;
    }
  }
  *error = "line " + std::to_string(s.line) + ": unknown expectation '--- " + s.header + "'";
  return false;
}

// The skip rule of a section kind that reaches into the reference's internals, if any.
std::optional<std::string> SkipRuleOf(const std::string& header) {
  const std::vector<std::string> w = Words(header);
  if (w.empty()) return std::nullopt;
  if (w[0] == "seam" || w[0] == "fault" || w[0] == "concurrent" || w[0] == "known_failure") {
    return w[0];
  }
  if (w.size() >= 2 && w[1] == "generate:") return "generator";
  return std::nullopt;
}

// Adds section `s` to the case being built; false with *error for an unknown section.
bool AddSection(const Section& s, Case* c, std::string* error) {
  const std::vector<std::string> w = Words(s.header);
  const std::string kind = w.empty() ? "" : w[0];
  if (std::optional<std::string> rule = SkipRuleOf(s.header)) {
    if (!c->skip_rule) c->skip_rule = rule;
    // A generated load or a concurrent block is a step of its own: what follows belongs to it.
    if (kind == "load" || kind == "concurrent") c->steps.push_back(Step{StepKind::kSkipped});
    return true;
  }
  if (kind == "runner") return true;  // Targets and timeouts: every case runs on both stores.
  if (kind == "schema" && w.size() == 1) {
    c->schema = Joined(s.body);
    return true;
  }
  if (kind == "seed" && w.size() == 1) {
    c->seed = Joined(s.body);
    return true;
  }
  if ((kind == "query" || kind == "mutate") &&
      (w.size() == 1 || (w.size() == 3 && w[1] == "branch:"))) {
    Step step;
    step.kind = kind == "query" ? StepKind::kQuery : StepKind::kMutate;
    if (w.size() == 3) step.branch = w[2];
    const int dropped_before = c->dropped_planner_checks;
    step.body = BodyWithoutSessionStatements(s.body, c);
    step.planner_switch_only =
        Trim(step.body).empty() && c->dropped_planner_checks > dropped_before;
    step.headers_only = !Trim(step.body).empty() && HeadersOnly(step.body);
    step.line = s.line;
    c->steps.push_back(std::move(step));
    return true;
  }
  if (kind == "restart" && w.size() == 1) {
    Step step;
    step.kind = StepKind::kRestart;
    step.line = s.line;
    c->steps.push_back(std::move(step));
    return true;
  }
  const bool has_step = !c->steps.empty() && c->steps.back().kind != StepKind::kRestart;
  if (kind == "params" && w.size() == 1 && has_step) {
    c->steps.back().params = Joined(s.body);
    return true;
  }
  if (kind == "expect" && w.size() == 1) return true;  // Session results of `concurrent` only.
  if (kind == "expect" && has_step) {
    Expect e;
    if (!ParseExpect(s, &e, error)) return false;
    if (e.kind == ExpectKind::kPlan || e.kind == ExpectKind::kSameAsV1) ++c->dropped_planner_checks;
    c->steps.back().expects.push_back(std::move(e));
    return true;
  }
  *error =
      "line " + std::to_string(s.line) + ": unknown or misplaced section '--- " + s.header + "'";
  return false;
}

}  // namespace

ParsedCase ParseCase(const std::string& text) {
  ParsedCase out;
  Case c;
  std::vector<Section> sections;
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (StartsWith(line, "--- ")) {
      sections.push_back(Section{Trim(line.substr(4)), {}, n});
    } else if (!sections.empty()) {
      sections.back().body.push_back(line);
    } else if (StartsWith(line, "# traversal:")) {
      ++c.dropped_planner_checks;  // The reference's edge-expansion mode; ours chooses its own.
    } else if (!Trim(line).empty() && line[0] != '#') {
      out.error = "line " + std::to_string(n) + ": text before the first section";
      return out;
    }
  }
  std::vector<Section> flat;
  if (!Expand(sections, 0, sections.size(), &flat, &out.error)) return out;
  for (const Section& s : flat) {
    if (!AddSection(s, &c, &out.error)) return out;
  }
  if (c.schema.empty() && !c.skip_rule) {
    out.error = "no --- schema section";
    return out;
  }
  out.value = std::move(c);
  return out;
}

}  // namespace omnigraph::gqt

#include "gqt_runner.h"

#include <cmath>
#include <memory>
#include <sstream>

#include "base/clock.h"
#include "base/json.h"
#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/read/query.h"
#include "engine/write/mutate.h"
#include "query/check/settings.h"
#include "query/exec/executor.h"
#include "query/parse/parser.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/uri.h"

namespace omnigraph::gqt {
namespace {

using schema::PropType;
using schema::ScalarKind;
using schema::Value;

// ---- Value comparison by the column's type (docs/design/gqt.md "Comparing rows").

// The corpus compares numbers after rounding to 12 decimal places.
bool SameAt12Places(double a, double b) { return std::round(a * 1e12) == std::round(b * 1e12); }

bool IsIntegerKind(ScalarKind k) {
  return k == ScalarKind::kI32 || k == ScalarKind::kI64 || k == ScalarKind::kU32 ||
         k == ScalarKind::kU64;
}

Json Plain(const OrderedJson& j) { return Json::parse(j.dump()); }

bool ValueMatches(const PropType& t, const Value& v, const Json& e) {
  if (v.is_null() || e.is_null()) return v.is_null() && e.is_null();
  if (t.list || t.scalar == ScalarKind::kVector) {
    if (v.tag() != Value::Tag::kList || !e.is_array()) return false;
    const std::vector<Value>& items = v.list_items();
    if (items.size() != e.size()) return false;
    PropType element = t;
    element.list = false;
    element.nullable = true;
    if (t.scalar == ScalarKind::kVector) element.scalar = ScalarKind::kF32;
    for (size_t i = 0; i < items.size(); ++i) {
      if (!ValueMatches(element, items[i], e[i])) return false;
    }
    return true;
  }
  if (IsIntegerKind(t.scalar)) {
    if (!e.is_number_integer() || !v.is_numeric() || v.tag() == Value::Tag::kFloat) return false;
    const Value ev =
        e.is_number_unsigned() ? Value::UInt(e.get<uint64_t>()) : Value::Int(e.get<int64_t>());
    return Value::Compare(v, ev) == 0;
  }
  if (t.scalar == ScalarKind::kF32 || t.scalar == ScalarKind::kF64) {
    if (!e.is_number() || !v.is_numeric()) return false;
    const double ours = v.tag() == Value::Tag::kFloat ? v.float_value()
                        : v.tag() == Value::Tag::kInt ? static_cast<double>(v.int_value())
                                                      : static_cast<double>(v.uint_value());
    if (t.scalar == ScalarKind::kF32) {
      // An F32 is compared as an F32: the expectation's number read at single precision.
      return SameAt12Places(static_cast<float>(ours), static_cast<float>(e.get<double>()));
    }
    return SameAt12Places(ours, e.get<double>());
  }
  if (t.scalar == ScalarKind::kBool) {
    return e.is_boolean() && v.tag() == Value::Tag::kBool && v.bool_value() == e.get<bool>();
  }
  if (t.scalar == ScalarKind::kString) {
    return e.is_string() && v.tag() == Value::Tag::kString &&
           v.string_value() == e.get<std::string>();
  }
  // Date, DateTime and the rest: their text form, as query output shows them.
  query::ResultColumn text;
  text.type = query::ExprType::Value(t);
  return Plain(query::CellJson(text, v)) == e;
}

// A bare entity: its id as "@id", each property by its type, a missing key meaning null.
bool EntityMatches(const schema::TypeDef& type, const Value& v, const Json& e) {
  if (v.is_null() || e.is_null()) return v.is_null() && e.is_null();
  if (!e.is_object() || v.tag() != Value::Tag::kList) return false;
  const std::vector<Value>& items = v.list_items();
  size_t matched = 0;
  if (!e.contains("@id") || !ValueMatches(PropType{}, items.at(0), e["@id"])) return false;
  ++matched;
  for (size_t i = 0; i < type.properties.size() && i + 1 < items.size(); ++i) {
    const schema::PropertyDef& p = type.properties[i];
    if (!query::InBareEntity(p)) continue;  // Left out of a bare entity (decision 178).
    const Json expected = e.contains(p.name) ? e[p.name] : Json(nullptr);
    if (e.contains(p.name)) ++matched;
    if (!ValueMatches(p.type, items[i + 1], expected)) return false;
  }
  return matched == e.size();  // No key the entity does not have.
}

bool CellMatches(const query::ResultColumn& column, const Value& v, const Json& e) {
  if (column.type.kind == query::ExprType::Kind::kEntity && column.type.entity != nullptr) {
    return EntityMatches(*column.type.entity, v, e);
  }
  if (column.type.kind == query::ExprType::Kind::kValue)
    return ValueMatches(column.type.value, v, e);
  return Plain(query::CellJson(column, v)) == e;
}

bool RowMatches(const query::QueryResult& result, size_t row, const Json& e) {
  size_t known = 0;
  for (size_t c = 0; c < result.columns.size(); ++c) {
    const std::string& name = result.columns[c].name;
    if (e.contains(name)) ++known;
    if (!CellMatches(result.columns[c], result.rows[row][c],
                     e.contains(name) ? e[name] : Json(nullptr))) {
      return false;
    }
  }
  return known == e.size();
}

std::string RenderRows(const query::QueryResult& result) {
  std::string out;
  for (const OrderedJson& row : query::RowsJson(result)) out += "\n    " + row.dump();
  return out.empty() ? " (none)" : out;
}

std::string CompareRows(const query::QueryResult& result, const Expect& x) {
  std::vector<Json> expected;
  for (const std::string& line : x.lines) {
    Result<Json> row = ParseJson(line, "expected row");
    if (!row.ok() || !row->is_object()) return "bad expected row " + line;
    expected.push_back(std::move(*row));
  }
  std::string mismatch = "rows differ; expected:";
  for (const std::string& line : x.lines) mismatch += "\n    " + line;
  mismatch += "\n  got:" + RenderRows(result);
  if (expected.size() != result.rows.size()) return mismatch;
  std::vector<bool> used(result.rows.size(), false);
  for (size_t i = 0; i < expected.size(); ++i) {
    bool found = false;
    for (size_t r = 0; r < result.rows.size() && !found; ++r) {
      if (x.kind == ExpectKind::kOrdered && r != i) continue;
      if (!used[r] && RowMatches(result, r, expected[i])) found = used[r] = true;
    }
    if (!found) return mismatch;
  }
  return "";
}

std::string ShapeOf(const query::ResultColumn& c) {
  std::string type;
  if (c.type.kind == query::ExprType::Kind::kEntity && c.type.entity != nullptr) {
    type = c.type.entity->name;
  } else {
    type = c.type.DisplayName();
    if (!type.empty() && type.back() == '?') type.pop_back();
    if (c.nullable) type += "?";
  }
  return c.name + ": " + type;
}

std::string CompareShape(const query::QueryResult& result, const Expect& x) {
  std::vector<std::string> ours;
  for (const query::ResultColumn& c : result.columns) ours.push_back(ShapeOf(c));
  if (ours == x.lines) return "";
  std::string out = "shape differs; expected:";
  for (const std::string& l : x.lines) out += "\n    " + l;
  out += "\n  got:";
  for (const std::string& l : ours) out += "\n    " + l;
  return out;
}

// ---- The graph under test and its store across restarts.

class Session {
 public:
  Session(StoreKind kind, std::string dir) : kind_(kind), dir_(std::move(dir)) {
    if (kind_ == StoreKind::kMemory) memory_ = std::make_shared<storage::MemoryStore>();
  }

  Status Init(const std::string& schema) {
    OMNIGRAPH_ASSIGN_OR_RETURN(storage::Runtime rt, NextRuntime());
    OMNIGRAPH_ASSIGN_OR_RETURN(graph_, engine::Graph::Init(rt, schema));
    return Status::Ok();
  }

  // Closes the graph and opens it again from what the store holds.
  Status Restart() {
    graph_.reset();
    OMNIGRAPH_ASSIGN_OR_RETURN(storage::Runtime rt, NextRuntime());
    OMNIGRAPH_ASSIGN_OR_RETURN(graph_, engine::Graph::Open(rt));
    return Status::Ok();
  }

  engine::Graph& graph() { return *graph_; }
  // Each step runs a millisecond after the one before (commit times and now() move forward).
  void Tick() { clock_->Advance(1000); }

 private:
  Result<storage::Runtime> NextRuntime() {
    std::shared_ptr<storage::ObjectStore> store = memory_;
    if (kind_ == StoreKind::kLocal) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<storage::LocalStore> local,
                                 storage::LocalStore::Open(dir_));
      store = std::move(local);
    }
    // A new seed per open: ids minted after a restart must not repeat those minted before.
    storage::Runtime rt = storage::Runtime::ForTest(std::move(store), ++opens_);
    rt.clock = clock_;
    return rt;
  }

  StoreKind kind_;
  std::string dir_;
  std::shared_ptr<storage::MemoryStore> memory_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  uint64_t opens_ = 0;
  std::unique_ptr<engine::Graph> graph_;
};

// ---- Steps.

struct StepResult {
  Status status = Status::Ok();
  std::optional<engine::MutationResult> mutation;
  std::optional<query::QueryResult> rows;
};

StepResult RunStep(Session& session, const Step& step) {
  StepResult out;
  Json params = Json::object();
  if (step.params) {
    Result<Json> parsed = ParseJson(*step.params, "params");
    if (!parsed.ok()) {
      out.status = parsed.status();
      return out;
    }
    params = std::move(*parsed);
  }
  session.Tick();
  if (step.planner_switch_only) return out;
  if (step.headers_only) {
    Result<query::QueryFile> file = query::ParseQueryFile(step.body);
    out.status = file.ok() ? query::ResolveSettings(file->settings).status() : file.status();
    return out;
  }
  if (step.kind == StepKind::kMutate) {
    engine::MutationOptions options;
    options.branch = step.branch;
    Result<engine::MutationResult> r =
        engine::Mutate(session.graph(), step.body, "", params, options);
    if (r.ok()) out.mutation = std::move(*r);
    out.status = r.status();
  } else {
    engine::RunOptions options;
    options.branch = step.branch;
    Result<engine::ReadOutcome> r =
        engine::RunRead(session.graph(), step.body, "", params, options);
    if (r.ok()) out.rows = std::move(r->result);
    out.status = r.status();
  }
  return out;
}

// "" when the expectation holds, else what differs.
std::string Check(const StepResult& r, const Expect& x) {
  if (x.kind == ExpectKind::kPlan || x.kind == ExpectKind::kSameAsV1) return "";
  if (x.kind == ExpectKind::kError) {
    if (r.status.ok()) return "expected an error containing '" + x.arg + "', the step succeeded";
    if (r.status.message().find(x.arg) == std::string::npos) {
      return "expected an error containing '" + x.arg + "', got: " + r.status.ToString();
    }
    return "";
  }
  if (!r.status.ok()) return "the step failed: " + r.status.ToString();
  switch (x.kind) {
    case ExpectKind::kOk: return "";
    case ExpectKind::kAffected: {
      if (!r.mutation) return "expected affected counts of a read";
      const std::string got = "nodes=" + std::to_string(r.mutation->affected_nodes) +
                              " edges=" + std::to_string(r.mutation->affected_edges);
      return got == x.arg ? "" : "expected affected: " + x.arg + ", got " + got;
    }
    case ExpectKind::kOutcome: {
      const std::string got =
          r.mutation && r.mutation->merge_outcome ? *r.mutation->merge_outcome : "(none)";
      return got == x.arg ? "" : "expected outcome: " + x.arg + ", got " + got;
    }
    case ExpectKind::kUnordered:
    case ExpectKind::kOrdered:
      return r.rows ? CompareRows(*r.rows, x) : "expected rows of a mutation";
    case ExpectKind::kShape:
      return r.rows ? CompareShape(*r.rows, x) : "expected a shape of a mutation";
    default: return "";
  }
}

std::string Where(const Step& step, const Expect* x) {
  std::string out = "line " + std::to_string(x ? x->line : step.line);
  if (x) out += " (step at line " + std::to_string(step.line) + ")";
  return out + ": ";
}

}  // namespace

const char* StoreKindName(StoreKind kind) {
  return kind == StoreKind::kMemory ? "memory" : "local";
}

RunOutcome RunCase(const Case& c, StoreKind kind, const std::string& scratch_dir) {
  RunOutcome out;
  Session session(kind, scratch_dir);
  if (Status s = session.Init(c.schema); !s.ok()) {
    out.failure = "schema: " + s.ToString();
    return out;
  }
  if (!c.seed.empty()) {
    Result<engine::LoadResult> loaded =
        engine::LoadJsonl(session.graph(), "main", c.seed, engine::LoadMode::kMerge);
    if (!loaded.ok()) {
      out.failure = "seed: " + loaded.status().ToString();
      return out;
    }
  }
  // Every step runs, also after a failure, so that the report names each thing that differs.
  std::vector<std::string> failures;
  for (const Step& step : c.steps) {
    if (step.kind == StepKind::kSkipped) {
      failures.push_back(Where(step, nullptr) + "a step skipped by rule cannot run");
      break;
    }
    if (step.kind == StepKind::kRestart) {
      if (Status s = session.Restart(); !s.ok()) {
        failures.push_back(Where(step, nullptr) + "restart: " + s.ToString());
        break;
      }
      continue;
    }
    const StepResult r = RunStep(session, step);
    if (step.expects.empty() && !r.status.ok()) {
      failures.push_back(Where(step, nullptr) + "the step failed: " + r.status.ToString());
    }
    for (const Expect& x : step.expects) {
      if (std::string why = Check(r, x); !why.empty()) {
        failures.push_back(Where(step, &x) + why);
        break;  // One failure per step: its other expectations say the same again.
      }
    }
  }
  for (const std::string& f : failures) out.failure += "\n* " + f;
  if (!failures.empty()) return out;
  out.passed = true;
  return out;
}

}  // namespace omnigraph::gqt

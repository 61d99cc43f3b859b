// The text form of a read plan (plan.h RenderPlan; docs/design/query-execution.md "The plan").
#include <charconv>

#include "base/json.h"
#include "query/plan/plan.h"
#include "schema/temporal.h"

namespace omnigraph::query {

using schema::Value;

namespace {

std::string ValueText(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::kNull: return "null";
    case Value::Tag::kBool: return v.bool_value() ? "true" : "false";
    case Value::Tag::kInt: return std::to_string(v.int_value());
    case Value::Tag::kUInt: return std::to_string(v.uint_value());
    case Value::Tag::kFloat: {
      char buf[64];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v.float_value());
      return ec == std::errc() ? std::string(buf, end) : "nan";
    }
    case Value::Tag::kString: return Json(v.string_value()).dump();
    case Value::Tag::kDate: return "date(\"" + schema::FormatDate(v.date_days()) + "\")";
    case Value::Tag::kDateTime:
      return "datetime(\"" + schema::FormatDateTime(v.datetime_ms()) + "\")";
    case Value::Tag::kList: {
      std::string out = "[";
      for (size_t i = 0; i < v.list_items().size(); ++i) {
        out += (i > 0 ? ", " : "") + ValueText(v.list_items()[i]);
      }
      return out + "]";
    }
  }
  return "?";
}

std::string MatchValueText(const MatchValue& v) {
  switch (v.kind) {
    case MatchValue::Kind::kLiteral: return ValueText(v.literal.value);
    case MatchValue::Kind::kVariable: return "$" + v.variable.text;
    case MatchValue::Kind::kNow: return "now()";
    case MatchValue::Kind::kExpr: return ExprText(v.expr);
  }
  return "?";
}

std::string Var(const std::string& name) { return "$" + name; }

std::string CondText(const PlanCond& c) {
  if (c.match != nullptr) {
    return Var(c.var) + "." + c.match->prop.text + " = " + MatchValueText(c.match->value);
  }
  if (c.filter->condition) return ExprText(*c.filter->condition);
  return ExprText(c.filter->left) + " " + CompOpName(c.op) + " " + ExprText(c.filter->right);
}

template <typename T, typename F>
std::string List(const std::vector<T>& items, F text) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + text(items[i]);
  return out + "]";
}

std::string Conds(const std::vector<PlanCond>& conds) { return List(conds, CondText); }
std::string Vars(const std::vector<std::string>& vars) { return List(vars, Var); }

std::string AccessText(const NodeAccess& a) {
  std::string out = "access " + Var(a.var) + ": " + a.type->name + " ";
  auto some = [&](const std::vector<size_t>& which) {
    std::vector<PlanCond> conds;
    for (size_t i : which) conds.push_back(a.conds[i]);
    return Conds(conds);
  };
  switch (a.method) {
    case AccessMethod::kAll: return out + "every row";
    case AccessMethod::kKeyLookup: out += "key lookup " + some(a.key_conds); break;
    case AccessMethod::kScan: out += "scan pushdown " + some(a.pushdown); break;
    case AccessMethod::kFilter: out += "every row"; break;
  }
  return out + " where " + Conds(a.conds);
}

std::string EndsText(const TraversalEnds& e, const std::string& edge_var) {
  std::string names;
  for (const schema::TypeDef* t : e.traversal->edges) names += (names.empty() ? "" : "|") + t->name;
  const std::string edge = (edge_var.empty() ? "" : Var(edge_var) + ":") + names;
  const char* left = e.direction == Direction::kIn ? " <-[" : " -[";
  const char* right = e.direction == Direction::kOut ? "]-> " : "]- ";
  return Var(e.start) + left + edge + right + Var(e.other);
}

std::string EndsSuffix(const TraversalEnds& e) {
  return std::string(e.bind_other ? " (binds " : " (checks ") + Var(e.other) + ")";
}

std::string ProjectionText(const Projection& p) {
  return ExprText(p.expr) + (p.alias ? " as " + p.alias->text : "");
}

// One line per step (indented by `depth`), and a block's scope under its anti join.
class Renderer {
 public:
  explicit Renderer(const Plan& plan) : plan_(plan) {}

  std::string Render() {
    Line(0, "match");
    Scope(plan_.scopes[0], 1);
    for (const OutputStep& step : plan_.output) std::visit([&](const auto& s) { Output(s); }, step);
    return out_;
  }

 private:
  void Line(int depth, const std::string& text) {
    out_ += std::string(static_cast<size_t>(depth) * 2, ' ') + text + "\n";
  }
  void Scope(const ScopePlan& scope, int depth) {
    if (!scope.failure.ok()) {
      Line(depth, "fails: " + scope.failure.message());
      return;
    }
    for (const NodeAccess& a : scope.access) Line(depth, AccessText(a));
    for (const MatchStep& step : scope.steps) {
      std::visit([&](const auto& s) { Step(s, depth); }, step);
    }
  }
  void Step(const FilterStep& s, int depth) {
    Line(depth, "filter " + Conds(s.conds));
    // The scope of each block operand, under the filter that runs it.
    std::vector<const Negation*> blocks;
    for (const PlanCond& c : s.conds) {
      if (c.filter == nullptr) continue;
      if (c.filter->condition) {
        CollectBlocks(*c.filter->condition, blocks);
      } else {
        CollectBlocks(c.filter->left, blocks);
        CollectBlocks(c.filter->right, blocks);
      }
    }
    for (const Negation* b : blocks) {
      auto scope = plan_.block_scopes.find(b);
      if (scope == plan_.block_scopes.end()) continue;
      Line(depth + 1, "block " + BlockText(*b));
      Scope(plan_.scopes[scope->second], depth + 2);
    }
  }
  void Step(const CrossJoinStep& s, int depth) {
    std::string text = "cross join " + Vars(s.vars);
    if (s.vars.size() > 1) text += " smallest first";
    if (!s.filters.empty()) text += " filter as bound " + Conds(s.filters);
    Line(depth, text);
  }
  void Step(const ExpandEdgesStep& s, int depth) {
    Line(depth, "expand edges " + EndsText(s.ends, s.edge_var) + EndsSuffix(s.ends));
  }
  void Step(const ReachStep& s, int depth) {
    if (s.min_hops == 1 && s.max_hops == 1) {
      Line(depth, "expand " + EndsText(s.ends, "") + EndsSuffix(s.ends));
      return;
    }
    Line(depth, "bfs " + EndsText(s.ends, "") + " hops " + std::to_string(s.min_hops) + ".." +
                    std::to_string(s.max_hops) + EndsSuffix(s.ends));
  }
  void Step(const AntiJoinStep& s, int depth) {
    Line(depth, "anti join");
    Scope(plan_.scopes[s.scope], depth + 1);
  }
  void Step(const SubqueryStep& s, int depth) {
    const Negation& b = *s.block;
    std::string text = "semi join";
    if (b.kind == BlockKind::kCount) text = "count join";
    if (b.kind == BlockKind::kSum) text = "sum join " + ExprText(b.sum_arg);
    if (b.kind != BlockKind::kExists) {
      text += std::string(" keep ") + CompOpName(b.op) + " " + ExprText(b.threshold);
    }
    Line(depth, text);
    Scope(plan_.scopes[s.scope], depth + 1);
  }

  void Output(const SortStep& s) {
    std::string text = "order";
    if (!s.keys.empty()) {
      text += " by " + List(s.keys, [&](const SortKey& k) {
                return (k.projection >= 0 ? plan_.query->columns[k.projection].name
                                          : ExprText(*k.expr)) +
                       (k.descending ? " desc" : "");
              });
    }
    text += " ties " + Vars(s.ties);
    if (s.limit) text += " top " + std::to_string(*s.limit);
    Line(0, text);
  }
  void Output(const NearestStep& s) {
    std::string text = "nearest " + Var(s.var) + "." + s.prop->name + " to " +
                       ExprText(s.expr->args.at(0)) +
                       (s.method == NearestMethod::kIndexed
                            ? " index annl2." + std::to_string(s.prop->id) + " or exact l2"
                            : " exact l2");
    if (s.leading && s.k) text += " top " + std::to_string(*s.k);
    Line(0, text);
  }
  void Output(const Bm25Step& s) {
    Line(0, "bm25 " + ExprText(s.expr->args.at(0)) + " for " + ExprText(s.expr->args.at(1)) +
                " keep rows with a query term");
  }
  void Output(const LimitStep& s) { Line(0, "limit " + std::to_string(s.count)); }
  void Output(const ProjectStep& s) {
    Line(0, "project " + List(s.columns, [](const Projection* p) { return ProjectionText(*p); }));
  }
  void Output(const AggregateStep& s) {
    std::vector<const Projection*> keys, aggregates;
    for (const AggregateColumn& c : s.columns) {
      (c.aggregate ? aggregates : keys).push_back(c.projection);
    }
    auto text = [](const Projection* p) { return ProjectionText(*p); };
    Line(0, "aggregate by " + Vars(s.by) + " group " + List(keys, text) + " compute " +
                List(aggregates, text) +
                (s.adjacency ? " counting " + EndsText(*s.adjacency, "") + " from the adjacency"
                             : "") +
                TopText(s));
  }
  // ", keys of the top k by [n desc]": only the candidates of the first k groups get keys.
  std::string TopText(const AggregateStep& s) const {
    if (!s.top) return "";
    std::vector<std::string> cols;
    for (size_t i = 0; i < s.top->columns.size(); ++i) {
      cols.push_back(plan_.query->columns[s.top->columns[i]].name +
                     (s.top->descending[i] ? " desc" : ""));
    }
    return ", keys of the top " + std::to_string(s.top->k) + " by " +
           List(cols, [](const std::string& k) { return k; });
  }
  void Output(const SortColumnsStep& s) {
    std::vector<std::string> keys;
    for (size_t i = 0; i < s.columns.size(); ++i) {
      keys.push_back(plan_.query->columns[s.columns[i]].name + (s.descending[i] ? " desc" : ""));
    }
    Line(0, "order columns " + List(keys, [](const std::string& k) { return k; }) +
                (s.limit ? " top " + std::to_string(*s.limit) : ""));
  }

  const Plan& plan_;
  std::string out_;
};

// How tightly a form binds, for parentheses: or < and < not < comparison < operand.
int Rank(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kOr: return 1;
    case ExprKind::kAnd: return 2;
    case ExprKind::kNot: return 3;
    case ExprKind::kCompare:
    case ExprKind::kIsNull:
    case ExprKind::kIn: return 4;
    default: return 5;
  }
}

std::string BooleanText(const Expr& e) {
  auto operand = [&](const Expr& a, bool tighter) {
    const bool paren = tighter ? Rank(a) <= Rank(e) : Rank(a) < Rank(e);
    return paren ? "(" + ExprText(a) + ")" : ExprText(a);
  };
  switch (e.kind) {
    case ExprKind::kCompare:
      return operand(e.args[0], true) + " " + CompOpName(e.op) + " " + operand(e.args[1], true);
    case ExprKind::kAnd: return operand(e.args[0], false) + " and " + operand(e.args[1], false);
    case ExprKind::kOr: return operand(e.args[0], false) + " or " + operand(e.args[1], false);
    case ExprKind::kNot: return "not " + operand(e.args[0], false);
    case ExprKind::kIsNull:
      return operand(e.args[0], true) + (e.negated ? " is not null" : " is null");
    default:
      return operand(e.args[0], true) + (e.negated ? " not in " : " in ") +
             operand(e.args[1], true);
  }
}

}  // namespace

const char* SearchName(ExprKind kind) {
  switch (kind) {
    case ExprKind::kNearest: return "nearest";
    case ExprKind::kSearch: return "search";
    case ExprKind::kFuzzy: return "fuzzy";
    case ExprKind::kMatchText: return "match_text";
    case ExprKind::kBm25: return "bm25";
    case ExprKind::kRrf: return "rrf";
    default: return "?";
  }
}

std::string BlockText(const Negation& b) {
  std::string out = b.kind == BlockKind::kSum ? "sum(" + ExprText(b.sum_arg) + ")"
                                              : std::string(BlockKindName(b.kind));
  out += " { ... }";
  if (b.kind == BlockKind::kCount || b.kind == BlockKind::kSum) {
    out += std::string(" ") + CompOpName(b.op) + " " + ExprText(b.threshold);
  }
  return out;
}

std::string ExprText(const Expr& e) {
  if (e.is_boolean_form()) return BooleanText(e);
  if (e.kind == ExprKind::kBlock) return BlockText(*e.block);
  switch (e.kind) {
    case ExprKind::kNow: return "now()";
    case ExprKind::kProp: return Var(e.var.text) + "." + e.prop.text;
    case ExprKind::kVariable: return Var(e.var.text);
    case ExprKind::kLiteral: return ValueText(e.literal.value);
    case ExprKind::kAlias: return e.alias.text;
    case ExprKind::kAggregate:
      return std::string(AggFuncName(e.agg)) + "(" + (e.args.empty() ? "" : ExprText(e.args[0])) +
             ")";
    default: break;
  }
  std::string out = SearchName(e.kind);
  out += "(";
  if (e.kind == ExprKind::kNearest) out += Var(e.var.text) + "." + e.prop.text;
  for (size_t i = 0; i < e.args.size(); ++i) {
    out += (i > 0 || e.kind == ExprKind::kNearest ? ", " : "") + ExprText(e.args[i]);
  }
  return out + ")";
}

std::string RenderPlan(const Plan& plan) { return Renderer(plan).Render(); }

}  // namespace omnigraph::query

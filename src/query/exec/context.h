// ExecContext: the state of one run of a read plan (docs/design/query-execution.md
// "Execution") — the graph view, the parameter values, the images and adjacencies the run has
// taken from the ExecCache, the counters — and what every operator shares: compiling expressions
// against a frame, evaluating them, and filtering rows. One per run; single-threaded.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "query/exec/executor.h"
#include "query/exec/frame.h"
#include "query/exec/graph_view.h"
#include "query/plan/plan.h"
#include "table/ann_index.h"

namespace omnigraph::query::text {
class FullTextIndex;
}  // namespace omnigraph::query::text

namespace omnigraph::query::exec {

// The candidates of one node variable of a running scope (plan.h NodeAccess), computed on first
// use: the dense indices that satisfy every constraint, ascending, and a membership bitmap that
// the first traversal restricted to them makes (expand.cc; a point lookup makes none). Both empty
// when `all`: every row qualifies, and no list is kept until a cross product needs one.
struct Candidates {
  const NodeAccess* access = nullptr;
  bool computed = false;
  bool all = false;
  std::vector<uint32_t> rows;
  std::vector<bool> allowed;
  size_t count = 0;  // How many qualify.
};

// The state of one run of a ScopePlan.
struct ScopeState {
  explicit ScopeState(const ScopePlan& scope);
  const ScopePlan& plan;
  std::map<std::string, Candidates, std::less<>> vars;
};

// Whether `prop` is the single key of node type `type` and of a type whose value's text is the
// node's id (docs/design/schema.md): String and the integer types, not a list or an enum. Such a
// key is read back from the id instead of from the fragments.
bool IsIdKey(const schema::TypeDef& type, const schema::PropertyDef& prop);

// Whether compiling `prop` of the node bound in `s` reads its column back from the ids rather
// than from the fragments: an id key (IsIdKey) whose column is not loaded yet, and a String one or
// one whose every id is in memory already (decisions 223, 256).
bool KeyReadFromIds(const Slot& s, const schema::PropertyDef& prop);

class ExecContext {
 public:
  ExecContext(const GraphView& view, const Plan& plan, std::span<const schema::Value> params,
              const ExecOptions& options)
      : view_(view), plan_(plan), params_(params), options_(options) {}

  const Plan& plan() const { return plan_; }
  const CheckedQuery& query() const { return *plan_.query; }
  ExecStats& stats() { return stats_; }

  // The image of a node or edge type's table version, and the adjacency of an edge type, each
  // taken from the cache once per run.
  Result<const TableImage*> Image(const schema::TypeDef& type);
  Result<const Adjacency*> Adj(const schema::TypeDef& edge);
  // The outgoing lists of `edge` for a walk from `nodes` (`from` dense indices), read point by
  // point: the run's PointAdjacency with `nodes` loaded, or null when the walk should use Adj()
  // instead — the adjacency is built already (in this run or the cache), more than
  // kPointFrontierMax of the nodes are not read yet, the handle's point reads of it add up to
  // the stored object's size already (ExecCache::PointReadsAllowed), or the version keeps no
  // adjacency that can be read in parts (a small version, revision 1, a chain of deltas, damage:
  // Adj() reads it whole, rebuilding a damaged one). Once null for an edge type, null for the rest
  // of the run. Without `with_edges` the lists may lack their edges (PointAdjacency::Load): a
  // walk that binds no edge. Storage failures as reported.
  static constexpr size_t kPointFrontierMax = 256;
  Result<const PointAdjacency*> PointOut(const schema::TypeDef& edge,
                                         std::span<const uint32_t> nodes, bool with_edges = true);
  // The ANN index of a node type's Vector property, from the cache; nullptr when it has none.
  Result<std::shared_ptr<const table::AnnIndex>> Ann(const schema::TypeDef& type,
                                                     uint32_t field_id);
  // The runtime's executor of a node type's table version: the threads a scan of its index's
  // codes divides its rows over.
  Result<Executor*> Threads(const schema::TypeDef& type);
  const ExecOptions& options() const { return options_; }
  const schema::TypeDef* NodeType(const schema::TypeRef& ref) const {
    return view_.catalog().FindById(ref.type_id);
  }

  // Charges `units` of traversal work (edges examined, rows a traversal emits) against the
  // run's traversal_work_limit (ExecOptions); ResourceLimit naming the limit once the run's
  // total exceeds it, so a traversal fails before it can exhaust memory.
  Status ChargeTraversal(uint64_t units);
  uint64_t traversal_work() const { return traversal_work_; }
  // The full-text index of `prop` over `slot`'s table version (exec/text.cc): cached, else read
  // from its derived object, else built and stored. InvalidArgument naming the `@index` to
  // declare when `prop` has none.
  Result<std::shared_ptr<const text::FullTextIndex>> TextIndex(const Slot& slot,
                                                               const schema::PropertyDef& prop);

  // The value of a constant expression (a literal, now(), a parameter).
  Result<schema::Value> ConstantOf(const Expr& e);
  Result<CExpr> CompileMatchValue(const MatchValue& v);
  // The value of a constant expression: ConstantOf, and Boolean forms over constants.
  Result<schema::Value> ConstantValue(const Expr& e);
  // Compiles `e` against the slots of `frame`. Unsupported for `nearest` with a String query
  // (which needs an embedding provider); the full-text forms as CompileText says (exec/text.h).
  Result<CExpr> Compile(const Expr& e, const Frame& frame);
  schema::Value Eval(const CExpr& e, const Frame& frame, size_t row) const;
  // Compiles a plan condition against `frame`.
  Result<Cond> CondOf(const PlanCond& c, const Frame& frame);
  // Keeps the rows of `frame` that satisfy every one of `conds`.
  void FilterRows(Frame& frame, const std::vector<Cond>& conds) const;
  Status FilterRows(Frame& frame, const std::vector<PlanCond>& conds);

 private:
  schema::Value EntityValue(const Slot& slot, uint32_t dense) const;
  Result<CExpr> CompileNearest(const Expr& e, const Frame& frame);
  Result<CExpr> CompileBoolean(const Expr& e, const Frame& frame);
  // A block operand: its truth for every row of `frame`, computed now (subquery.cc).
  Result<CExpr> CompileBlock(const Expr& e, const Frame& frame);
  Result<CExpr> CompileMeta(const Expr& e, const Frame& frame, int slot);
  schema::Value EvalBoolean(const CExpr& e, const Frame& frame, size_t row) const;

  const GraphView& view_;
  const Plan& plan_;
  std::span<const schema::Value> params_;
  ExecOptions options_;
  std::map<const schema::TypeDef*, std::shared_ptr<const TableImage>> images_;
  std::map<const schema::TypeDef*, std::shared_ptr<const Adjacency>> adjacencies_;
  std::map<const schema::TypeDef*, std::unique_ptr<PointAdjacency>> points_;
  std::set<const schema::TypeDef*> no_points_;
  ExecStats stats_;
  uint64_t traversal_work_ = 0;
};

}  // namespace omnigraph::query::exec

// Expand and breadth-first search: the traversal operators (operators.h;
// docs/design/query-execution.md "Traversal semantics").
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "query/exec/operators.h"

namespace omnigraph::query::exec {

using schema::TypeDef;

namespace {

// A set of node numbers that is cleared in O(1): an epoch per node when many searches share it,
// or a hash set when only a few searches run over a large graph (allocating and zeroing a
// per-node array would dominate a single small search).
class Marks {
 public:
  Marks(uint32_t nodes, bool dense) : dense_(dense) {
    if (dense_) epochs_.assign(nodes, 0);
  }
  void Clear() {
    if (dense_) {
      ++epoch_;
    } else {
      set_.clear();
    }
  }
  // True when `v` was not in the set (and adds it).
  bool Insert(uint32_t v) {
    if (!dense_) return set_.insert(v).second;
    if (epochs_[v] == epoch_) return false;
    epochs_[v] = epoch_;
    return true;
  }

 private:
  bool dense_;
  uint32_t epoch_ = 1;
  std::vector<uint32_t> epochs_;
  std::unordered_set<uint32_t> set_;
};

// Breadth-first search with the reference's semantics: each node is visited at most once per
// source (at its shortest distance); a node is emitted when reached at a hop within
// [min, max]; the source returns only through its own self-loop (at hop 1), and a self-loop
// of any other node reaches nothing new. Edges between two different node types cannot chain, so
// their traversals are single-hop (the plan clamps their max).
class Bfs {
 public:
  // `nodes`: the size of the node numbering the search walks (both ends, for same-type edges;
  // the target side otherwise). `searches`: about how many sources will be searched.
  // `adjs`: the adjacency of every edge type walked (one, or an edge set's, all over the same
  // node types).
  Bfs(std::vector<const Adjacency*> adjs, Direction dir, bool same_type, uint32_t min_hops,
      uint32_t max_hops, uint32_t nodes, size_t searches)
      : dir_(dir),
        same_type_(same_type),
        min_(min_hops),
        max_(same_type ? max_hops : std::min<uint32_t>(max_hops, 1)),
        visited_(nodes, searches > 16 || nodes <= 4096),
        emitted_(nodes, searches > 16 || nodes <= 4096) {
    // Only the walked sides: an adjacency builds its incoming side on first use.
    for (const Adjacency* adj : adjs) {
      if (dir_ != Direction::kIn) sides_.push_back(&adj->out());
      if (dir_ != Direction::kOut) sides_.push_back(&adj->in());
    }
  }

  // The nodes reached from `start`, in discovery order.
  const std::vector<uint32_t>& Run(uint32_t start) {
    visited_.Clear();
    emitted_.Clear();
    out_.clear();
    frontier_.assign(1, start);
    if (same_type_) visited_.Insert(start);
    for (uint32_t hop = 1; hop <= max_ && !frontier_.empty(); ++hop) {
      next_.clear();
      for (uint32_t node : frontier_) {
        auto visit = [&](uint32_t neighbor) {
          if (same_type_ && neighbor == node) {
            // A self-loop only reaches a node not seen before when it is the start's own: any
            // other node on the frontier was reached at a shorter distance already.
            if (node == start && hop >= min_ && emitted_.Insert(neighbor)) out_.push_back(neighbor);
            return;
          }
          if (!same_type_ || visited_.Insert(neighbor)) {
            next_.push_back(neighbor);
            if (hop >= min_ && emitted_.Insert(neighbor)) out_.push_back(neighbor);
          }
        };
        for (const Csr* side : sides_) {
          auto targets = side->Targets(node);
          work_ += targets.size();
          for (uint32_t n : targets) visit(n);
        }
      }
      frontier_.swap(next_);
    }
    return out_;
  }

  // The edges examined since the last call (traversal work).
  uint64_t TakeWork() { return std::exchange(work_, 0); }

 private:
  // Per adjacency, its outgoing side then its incoming side, each when walked.
  std::vector<const Csr*> sides_;
  uint64_t work_ = 0;
  Direction dir_;
  bool same_type_;
  uint32_t min_;
  uint32_t max_;
  Marks visited_;
  Marks emitted_;
  std::vector<uint32_t> frontier_, next_, out_;
};

// The candidate bitmap the other end is restricted to when the step binds it (null when every
// row qualifies or the end is already bound).
Result<const std::vector<bool>*> OtherAllowed(ExecContext& ctx, ScopeState& scope,
                                              const TraversalEnds& ends) {
  if (!ends.bind_other) return static_cast<const std::vector<bool>*>(nullptr);
  OMNIGRAPH_ASSIGN_OR_RETURN(Candidates * c, ComputeCandidates(ctx, scope, ends.other));
  return c->all ? nullptr : &c->allowed;
}

// Appends the other end's column when the step binds it.
Status BindOther(ExecContext& ctx, Frame& frame, const TraversalEnds& ends,
                 std::vector<uint32_t> other) {
  if (!ends.bind_other) return Status::Ok();
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* image, ctx.Image(*ends.other_type));
  frame.slots.push_back(Slot{ends.other, SlotKind::kNode, ends.other_type, image});
  frame.cols.push_back(std::move(other));
  return Status::Ok();
}

Status EndSlots(const Frame& frame, const TraversalEnds& ends, int& start, int& other) {
  start = frame.Find(ends.start);
  other = ends.bind_other ? -1 : frame.Find(ends.other);
  if (start < 0 || (!ends.bind_other && other < 0)) {
    return Internal("a traversal end the plan binds is not in the frame");
  }
  return Status::Ok();
}

}  // namespace

Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame, const ExpandEdgesStep& step) {
  const TraversalEnds& ends = step.ends;
  const TypeDef& edge = *ends.traversal->edge;
  OMNIGRAPH_ASSIGN_OR_RETURN(const Adjacency* adj, ctx.Adj(edge));
  int start_slot = -1, other_slot = -1;
  OMNIGRAPH_RETURN_IF_ERROR(EndSlots(frame, ends, start_slot, other_slot));
  OMNIGRAPH_ASSIGN_OR_RETURN(const std::vector<bool>* other_allowed,
                             OtherAllowed(ctx, scope, ends));
  std::vector<uint32_t> outer, other, edges;
  const Direction dir = ends.direction;
  // Only the walked sides: the incoming side is built on first use.
  const Csr* out = dir != Direction::kIn ? &adj->out() : nullptr;
  const Csr* in = dir != Direction::kOut ? &adj->in() : nullptr;
  for (size_t r = 0; r < frame.rows; ++r) {
    uint32_t s = frame.cols[start_slot][r];
    // One unit for the start and one per edge examined (each CSR side is numbered by its own
    // end's type, so only the walked sides are read).
    const size_t out_degree = out != nullptr ? out->Targets(s).size() : 0;
    const size_t in_degree = in != nullptr ? in->Targets(s).size() : 0;
    OMNIGRAPH_RETURN_IF_ERROR(ctx.ChargeTraversal(1 + out_degree + in_degree));
    auto emit = [&](uint32_t o, uint32_t e) {
      if (other_slot >= 0 && frame.cols[other_slot][r] != o) return;
      if (other_slot < 0 && other_allowed != nullptr && !(*other_allowed)[o]) return;
      outer.push_back(static_cast<uint32_t>(r));
      other.push_back(o);
      edges.push_back(e);
    };
    if (out != nullptr) {
      auto ts = out->Targets(s);
      auto es = out->Edges(s);
      for (size_t i = 0; i < ts.size(); ++i) emit(ts[i], es[i]);
    }
    if (in != nullptr) {
      auto ts = in->Targets(s);
      auto es = in->Edges(s);
      for (size_t i = 0; i < ts.size(); ++i) {
        // Undirected: a self-loop matches through both orientations; emit it once (an edge into
        // `s` from `s`).
        if (dir == Direction::kBoth && ts[i] == s) continue;
        emit(ts[i], es[i]);
      }
    }
  }
  frame.Gather(outer);
  OMNIGRAPH_RETURN_IF_ERROR(BindOther(ctx, frame, ends, std::move(other)));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* edge_image, ctx.Image(edge));
  frame.slots.push_back(Slot{step.edge_var, SlotKind::kEdge, &edge, edge_image});
  frame.cols.push_back(std::move(edges));
  return Status::Ok();
}

Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame, const ReachStep& step) {
  const TraversalEnds& ends = step.ends;
  const TypeDef& edge = *ends.traversal->edge;
  std::vector<const Adjacency*> adjs;
  for (const TypeDef* e : ends.traversal->edges) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const Adjacency* a, ctx.Adj(*e));
    adjs.push_back(a);
  }
  const Adjacency* adj = adjs.front();
  int start_slot = -1, other_slot = -1;
  OMNIGRAPH_RETURN_IF_ERROR(EndSlots(frame, ends, start_slot, other_slot));
  const bool same_type = ctx.NodeType(edge.from) == ctx.NodeType(edge.to);
  // Reached nodes are numbered on the target side: `to` for kOut, `from` for kIn (both sides
  // are one type for kBoth and for same-type edges).
  const uint32_t reached_nodes =
      ends.direction == Direction::kOut ? adj->to_nodes() : adj->from_nodes();
  Bfs bfs(adjs, ends.direction, same_type, step.min_hops, step.max_hops,
          std::max<uint32_t>(reached_nodes, 1), frame.rows);
  OMNIGRAPH_ASSIGN_OR_RETURN(const std::vector<bool>* other_allowed,
                             OtherAllowed(ctx, scope, ends));
  // BFS results, memoized per start node within this step.
  std::unordered_map<uint32_t, std::vector<uint32_t>> memo;
  std::vector<uint32_t> outer, other;
  for (size_t r = 0; r < frame.rows; ++r) {
    uint32_t s = frame.cols[start_slot][r];
    auto it = memo.find(s);
    if (it == memo.end()) {
      std::vector<uint32_t> reached = bfs.Run(s);
      OMNIGRAPH_RETURN_IF_ERROR(ctx.ChargeTraversal(1 + bfs.TakeWork()));
      if (other_slot >= 0) std::sort(reached.begin(), reached.end());
      it = memo.emplace(s, std::move(reached)).first;
    }
    const std::vector<uint32_t>& reached = it->second;
    if (other_slot < 0) OMNIGRAPH_RETURN_IF_ERROR(ctx.ChargeTraversal(reached.size()));
    if (other_slot >= 0) {
      if (std::binary_search(reached.begin(), reached.end(), frame.cols[other_slot][r])) {
        outer.push_back(static_cast<uint32_t>(r));
      }
      continue;
    }
    for (uint32_t o : reached) {
      if (other_allowed != nullptr && !(*other_allowed)[o]) continue;
      outer.push_back(static_cast<uint32_t>(r));
      other.push_back(o);
    }
  }
  frame.Gather(outer);
  return BindOther(ctx, frame, ends, std::move(other));
}

}  // namespace omnigraph::query::exec

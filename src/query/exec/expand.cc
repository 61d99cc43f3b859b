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

// One walked side of one edge type: the full adjacency's, or lists read point by point.
struct Side {
  const Csr* full = nullptr;
  const PointAdjacency* point = nullptr;
  std::span<const uint32_t> Targets(uint32_t v) const {
    return full != nullptr ? full->Targets(v) : point->Targets(v);
  }
  std::span<const uint32_t> Edges(uint32_t v) const {
    return full != nullptr ? full->Edges(v) : point->Edges(v);
  }
};

// The sides a traversal walks: per edge type its outgoing side, then its incoming side, each when
// walked. An outgoing side is read point by point while the nodes it is asked for stay few and
// the adjacency is not built (ExecContext::PointOut); otherwise, and for an incoming side, it is
// the full adjacency's (whose incoming side is built on first use). Both give the same lists, so
// a walk may switch from one to the other between hops.
class Sides {
 public:
  // `with_edges`: whether the walk asks for Edges (binds its edges); a reach does not, and its
  // point reads then leave the edge slots unread.
  Sides(ExecContext& ctx, std::vector<const TypeDef*> edges, Direction dir, bool with_edges)
      : ctx_(ctx), edges_(std::move(edges)), dir_(dir), with_edges_(with_edges) {}

  // Makes every side hold the lists of `nodes`. With no nodes nothing is read: the sides are
  // placeholders that no walk asks (a key lookup that found nothing builds no adjacency).
  Status Prepare(std::span<const uint32_t> nodes) {
    sides_.clear();
    if (nodes.empty()) {
      const size_t per_edge = dir_ == Direction::kBoth ? 2 : 1;
      sides_.assign(edges_.size() * per_edge, Side{});
      return Status::Ok();
    }
    for (const TypeDef* edge : edges_) {
      if (dir_ == Direction::kOut) {
        OMNIGRAPH_ASSIGN_OR_RETURN(const PointAdjacency* point,
                                   ctx_.PointOut(*edge, nodes, with_edges_));
        if (point != nullptr) {
          sides_.push_back(Side{nullptr, point});
          continue;
        }
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(const Adjacency* adj, ctx_.Adj(*edge));
      if (dir_ != Direction::kIn) sides_.push_back(Side{&adj->out(), nullptr});
      if (dir_ != Direction::kOut) sides_.push_back(Side{&adj->in(), nullptr});
    }
    return Status::Ok();
  }
  const std::vector<Side>& get() const { return sides_; }

 private:
  ExecContext& ctx_;
  std::vector<const TypeDef*> edges_;
  Direction dir_;
  bool with_edges_;
  std::vector<Side> sides_;
};

// Breadth-first search with the reference's semantics: each node is visited at most once per
// source (at its shortest distance); a node is emitted when reached at a hop within
// [min, max]; the source returns only through its own self-loop (at hop 1), and a self-loop
// of any other node reaches nothing new. Edges between two different node types cannot chain, so
// their traversals are single-hop (the plan clamps their max).
class Bfs {
 public:
  // `sides`: the sides walked (every edge type of the traversal, the walked directions).
  // `nodes`: the size of the node numbering the search walks (both ends, for same-type edges;
  // the target side otherwise). `searches`: about how many sources will be searched.
  Bfs(Sides& sides, bool same_type, uint32_t min_hops, uint32_t max_hops, uint32_t nodes,
      size_t searches)
      : sides_(sides),
        same_type_(same_type),
        min_(min_hops),
        max_(same_type ? max_hops : std::min<uint32_t>(max_hops, 1)),
        visited_(nodes, searches > 16 || nodes <= 4096),
        emitted_(nodes, searches > 16 || nodes <= 4096) {}

  // The nodes reached from `start`, in discovery order.
  Result<std::vector<uint32_t>> Run(uint32_t start) {
    visited_.Clear();
    emitted_.Clear();
    out_.clear();
    frontier_.assign(1, start);
    if (same_type_) visited_.Insert(start);
    for (uint32_t hop = 1; hop <= max_ && !frontier_.empty(); ++hop) {
      next_.clear();
      OMNIGRAPH_RETURN_IF_ERROR(sides_.Prepare(frontier_));
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
        for (const Side& side : sides_.get()) {
          auto targets = side.Targets(node);
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
  Sides& sides_;
  uint64_t work_ = 0;
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
  if (c->all) return static_cast<const std::vector<bool>*>(nullptr);
  // Made on first need from the candidate rows (ComputeCandidates leaves it empty).
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* image, ctx.Image(*c->access->type));
  if (c->allowed.size() != image->size()) {
    c->allowed.assign(image->size(), false);
    for (uint32_t d : c->rows) c->allowed[d] = true;
    ++ctx.stats().candidate_bitmaps;
  }
  return &c->allowed;
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
  int start_slot = -1, other_slot = -1;
  OMNIGRAPH_RETURN_IF_ERROR(EndSlots(frame, ends, start_slot, other_slot));
  OMNIGRAPH_ASSIGN_OR_RETURN(const std::vector<bool>* other_allowed,
                             OtherAllowed(ctx, scope, ends));
  std::vector<uint32_t> outer, other, edges;
  const Direction dir = ends.direction;
  // Only the walked sides: the incoming side is built on first use. For kBoth the first side is
  // the outgoing one, the second the incoming one.
  Sides sides(ctx, {&edge}, dir, /*with_edges=*/true);
  OMNIGRAPH_RETURN_IF_ERROR(sides.Prepare(frame.cols[start_slot]));
  const Side* out = dir != Direction::kIn ? &sides.get().front() : nullptr;
  const Side* in = dir != Direction::kOut ? &sides.get().back() : nullptr;
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
  int start_slot = -1, other_slot = -1;
  OMNIGRAPH_RETURN_IF_ERROR(EndSlots(frame, ends, start_slot, other_slot));
  const TypeDef* from = ctx.NodeType(edge.from);
  const TypeDef* to = ctx.NodeType(edge.to);
  if (from == nullptr || to == nullptr) {
    return Internal("edge type " + edge.name + " has an unknown endpoint type");
  }
  const bool same_type = from == to;
  // Reached nodes are numbered on the target side: `to` for kOut, `from` for kIn (both sides
  // are one type for kBoth and for same-type edges).
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* reached_image,
                             ctx.Image(ends.direction == Direction::kOut ? *to : *from));
  Sides sides(ctx, ends.traversal->edges, ends.direction, /*with_edges=*/false);
  // Every start's first hop in one batch: few starts are read point by point together, many
  // make the walk use the full adjacency from the start.
  OMNIGRAPH_RETURN_IF_ERROR(sides.Prepare(frame.cols[start_slot]));
  Bfs bfs(sides, same_type, step.min_hops, step.max_hops,
          std::max<uint32_t>(reached_image->size(), 1), frame.rows);
  OMNIGRAPH_ASSIGN_OR_RETURN(const std::vector<bool>* other_allowed,
                             OtherAllowed(ctx, scope, ends));
  // BFS results, memoized per start node within this step.
  std::unordered_map<uint32_t, std::vector<uint32_t>> memo;
  std::vector<uint32_t> outer, other;
  for (size_t r = 0; r < frame.rows; ++r) {
    uint32_t s = frame.cols[start_slot][r];
    auto it = memo.find(s);
    if (it == memo.end()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> reached, bfs.Run(s));
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

// Grouping frame rows by one property's values, column at a time (aggregate_parts.h
// GroupByValue; docs/design/query-execution.md "Grouping by a value, column at a time").
//
// The key column is gathered at the frame rows once, each row gets its group from a table
// indexed by value − min (an integral key whose values span few codes), a hash of the values
// (a wider span) or a hash of the bytes (String, Blob), and then each aggregate runs as one loop
// over the rows' group numbers and its argument's gathered values. The groups are then put in
// the aggregate's group order: ascending smallest dense index of the `by` variable among their
// rows.
//
// Why the values are exactly those of the grouping by entities then by key (aggregate.cc):
// that path adds each row into its entity's partial, then merges the entities' partials in
// ascending dense order. When the `by` column ascends strictly (a scan of a table, filtered or
// not), every row is its own entity and the merge adds the rows in row order, which is the
// order used here, so every aggregate — float sums too — comes out the same. Otherwise (a
// traversal reaches an entity from several rows) only order-free aggregates run here: counts,
// min and max of integral, Bool, Date, DateTime, String and Blob values (equal values are
// identical, so which row wins a tie does not show), and integer sums whose absolute values add
// up to less than 2^63 (no partial sum overflows in any order, so they add exactly); anything
// else goes back to the entity path.
#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

#include "query/exec/aggregate_parts.h"
#include "query/exec/column_codec.h"

namespace omnigraph::query::exec {

using schema::Value;
using table::TypeId;

namespace {

constexpr uint32_t kNoGroup = UINT32_MAX;
constexpr uint32_t kNoRow = UINT32_MAX;
// An integral key whose non-null values span fewer codes than this (or than the rows, when
// there are more) groups through a table indexed by value − min: at most 4 bytes a code, so
// at most 256 KiB or 4 bytes a row. A wider span hashes.
constexpr uint64_t kDenseSpanMin = 1 << 16;

bool IsIntegral(TypeId t) {
  return t == TypeId::kBool || t == TypeId::kI32 || t == TypeId::kI64 || t == TypeId::kU32 ||
         t == TypeId::kU64 || t == TypeId::kDate || t == TypeId::kDateTime;
}
bool IsBytes(TypeId t) { return t == TypeId::kString || t == TypeId::kBinary; }
bool IsFloat(TypeId t) { return t == TypeId::kF32 || t == TypeId::kF64; }

// A column of a frame slot gathered at the frame rows: integral values as int64 bits (Bool as
// 0/1, U64 reinterpreted), floats widened, bytes as views into the column; which rows are null
// (empty when none is). Only `null` is filled for other types.
struct Gathered {
  TypeId type = TypeId::kNone;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string_view> bytes;
  std::vector<uint8_t> null;

  bool IsNull(size_t r) const { return !null.empty() && null[r] != 0; }
};

template <typename T, typename Out>
void GatherFixed(const TableImage::ChunkedColumn& column, const std::vector<uint32_t>& dense,
                 size_t rows, std::vector<Out>& out) {
  std::vector<const T*> base;
  for (const table::Column& c : column.chunks) base.push_back(c.values<T>().data());
  out.resize(rows);
  for (size_t r = 0; r < rows; ++r) {
    const uint32_t d = dense[r];
    out[r] =
        static_cast<Out>(base[d >> TableImage::kChunkShift][TableImage::ChunkedColumn::row(d)]);
  }
}

Gathered Gather(const Frame& frame, int slot, const TableImage::ChunkedColumn& column) {
  Gathered g;
  if (column.chunks.empty()) return g;
  g.type = column.chunks[0].type().id;
  const std::vector<uint32_t>& dense = frame.cols[slot];
  const size_t rows = frame.rows;
  using Chunked = TableImage::ChunkedColumn;
  bool nulls = false;
  for (const table::Column& c : column.chunks) nulls = nulls || c.null_count() > 0;
  if (nulls) {
    g.null.resize(rows);
    for (size_t r = 0; r < rows; ++r)
      g.null[r] = column.chunk(dense[r]).IsNull(Chunked::row(dense[r]));
  }
  switch (g.type) {
    case TypeId::kBool:
      g.ints.resize(rows);
      for (size_t r = 0; r < rows; ++r) {
        g.ints[r] = column.chunk(dense[r]).BoolAt(Chunked::row(dense[r])) ? 1 : 0;
      }
      break;
    case TypeId::kI32:
    case TypeId::kDate: GatherFixed<int32_t>(column, dense, rows, g.ints); break;
    case TypeId::kI64:
    case TypeId::kDateTime: GatherFixed<int64_t>(column, dense, rows, g.ints); break;
    case TypeId::kU32: GatherFixed<uint32_t>(column, dense, rows, g.ints); break;
    case TypeId::kU64: GatherFixed<uint64_t>(column, dense, rows, g.ints); break;
    case TypeId::kF32: GatherFixed<float>(column, dense, rows, g.floats); break;
    case TypeId::kF64: GatherFixed<double>(column, dense, rows, g.floats); break;
    case TypeId::kString:
    case TypeId::kBinary:
      g.bytes.resize(rows);
      for (size_t r = 0; r < rows; ++r) {
        g.bytes[r] = column.chunk(dense[r]).StringAt(Chunked::row(dense[r]));
      }
      break;
    default: break;
  }
  return g;
}

// The rows' groups by key value: per row its group, per group its first row.
struct KeyGroups {
  std::vector<uint32_t> of_row;
  std::vector<uint32_t> first_row;

  uint32_t Add(uint32_t row) {
    first_row.push_back(row);
    return static_cast<uint32_t>(first_row.size() - 1);
  }
  size_t size() const { return first_row.size(); }
};

// Groups the rows by a hash of `values` (the gathered values of `key`); the null rows form one
// group.
template <typename V>
KeyGroups GroupByHash(const Gathered& key, const std::vector<V>& values) {
  KeyGroups out;
  out.of_row.resize(values.size());
  uint32_t null_group = kNoGroup;
  std::unordered_map<V, uint32_t> table;
  for (size_t r = 0; r < values.size(); ++r) {
    uint32_t* g = &null_group;
    if (!key.IsNull(r)) g = &table.try_emplace(values[r], kNoGroup).first->second;
    if (*g == kNoGroup) *g = out.Add(static_cast<uint32_t>(r));
    out.of_row[r] = *g;
  }
  return out;
}

// Groups `rows` rows by the integral values of `key`: a table indexed by value − min when the
// values span few codes, a hash otherwise; the null rows form one group.
KeyGroups GroupIntegral(const Gathered& key, size_t rows) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t r = 0; r < rows; ++r) {
    if (key.IsNull(r)) continue;
    lo = std::min(lo, key.ints[r]);
    hi = std::max(hi, key.ints[r]);
  }
  const uint64_t span = lo > hi ? 0 : static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span >= std::max<uint64_t>(kDenseSpanMin, rows)) return GroupByHash(key, key.ints);
  KeyGroups out;
  out.of_row.resize(rows);
  uint32_t null_group = kNoGroup;
  std::vector<uint32_t> table(lo > hi ? 0 : span + 1, kNoGroup);
  for (size_t r = 0; r < rows; ++r) {
    uint32_t& g = key.IsNull(r)
                      ? null_group
                      : table[static_cast<uint64_t>(key.ints[r]) - static_cast<uint64_t>(lo)];
    if (g == kNoGroup) g = out.Add(static_cast<uint32_t>(r));
    out.of_row[r] = g;
  }
  return out;
}

// min/max over gathered integral or byte values: per group the row of its best value (the first
// such row), then that value read back from the column, and the count of non-null values.
template <typename Better>
void BestRows(const Gathered& v, const KeyGroups& groups, Better better,
              std::vector<Partial>& parts, std::vector<uint32_t>& best) {
  best.assign(groups.size(), kNoRow);
  for (size_t r = 0; r < groups.of_row.size(); ++r) {
    if (v.IsNull(r)) continue;
    const uint32_t g = groups.of_row[r];
    ++parts[g].count;
    if (best[g] == kNoRow || better(r, best[g])) best[g] = static_cast<uint32_t>(r);
  }
}

Status MinMax(AggFunc func, const Gathered& v, const CExpr& e, const Frame& frame,
              const KeyGroups& groups, std::vector<Partial>& parts) {
  const bool min = func == AggFunc::kMin;
  std::vector<uint32_t> best;
  if (IsBytes(v.type)) {
    BestRows(
        v, groups,
        [&](size_t a, size_t b) {
          const int c = v.bytes[a].compare(v.bytes[b]);
          return min ? c < 0 : c > 0;
        },
        parts, best);
  } else if (v.type == TypeId::kU64) {
    BestRows(
        v, groups,
        [&](size_t a, size_t b) {
          const auto x = static_cast<uint64_t>(v.ints[a]), y = static_cast<uint64_t>(v.ints[b]);
          return min ? x < y : x > y;
        },
        parts, best);
  } else {
    BestRows(
        v, groups,
        [&](size_t a, size_t b) { return min ? v.ints[a] < v.ints[b] : v.ints[a] > v.ints[b]; },
        parts, best);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (best[g] == kNoRow) continue;
    const uint32_t dense = frame.cols[e.slot][best[g]];
    parts[g].best = ValueAt(e.column->chunk(dense), TableImage::ChunkedColumn::row(dense));
  }
  return Status::Ok();
}

// sum/avg over gathered integers (I32, I64, U32, U64) as Partial::Add adds them, in row order;
// false when the order matters (not `ascending`) and the sums might overflow in some order.
bool SumInts(const Gathered& v, const KeyGroups& groups, bool ascending,
             std::vector<Partial>& parts) {
  const size_t rows = groups.of_row.size();
  const bool u64 = v.type == TypeId::kU64;
  if (!ascending) {
    uint64_t total = 0;
    for (size_t r = 0; r < rows; ++r) {
      if (v.IsNull(r)) continue;
      const int64_t x = v.ints[r];
      const uint64_t magnitude =
          u64 || x >= 0 ? static_cast<uint64_t>(x) : 0 - static_cast<uint64_t>(x);
      if (__builtin_add_overflow(total, magnitude, &total)) return false;
    }
    if (total > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  }
  for (size_t r = 0; r < rows; ++r) {
    if (v.IsNull(r)) continue;
    Partial& p = parts[groups.of_row[r]];
    if (u64 && v.ints[r] < 0) {
      p.float_sum += static_cast<double>(static_cast<uint64_t>(v.ints[r]));
    } else {
      p.AddInt(v.ints[r]);
    }
    ++p.count;
  }
  return true;
}

// Aggregate `a` over every row into `parts` (one per group), column at a time. False when its
// argument is not one this path computes (the caller then groups by entities).
Result<bool> Aggregate(ExecContext& ctx, const Frame& frame, const AggregateArgs& args, size_t a,
                       const KeyGroups& groups, bool ascending, std::span<const int64_t> row_counts,
                       std::vector<Partial>& parts) {
  const AggFunc func = args.funcs[a];
  const CExpr& e = args.exprs[a];
  if (args.counts_rows[a]) {
    for (size_t r = 0; r < frame.rows; ++r) {
      parts[groups.of_row[r]].count += row_counts.empty() ? 1 : row_counts[r];
    }
    return true;
  }
  if (!row_counts.empty()) return false;  // Only counts of rows are weighted.
  if (e.kind != CExpr::Kind::kProp || e.column == nullptr) {
    // Any other argument, row by row as the entity path adds it: only in its order.
    if (!ascending) return false;
    for (size_t r = 0; r < frame.rows; ++r)
      parts[groups.of_row[r]].Add(func, ctx.Eval(e, frame, r));
    return true;
  }
  const Gathered v = Gather(frame, e.slot, *e.column);
  const bool integral = IsIntegral(v.type) && v.type != TypeId::kBool;
  if (func == AggFunc::kCount) {
    for (size_t r = 0; r < frame.rows; ++r) parts[groups.of_row[r]].count += v.IsNull(r) ? 0 : 1;
    return true;
  }
  if ((func == AggFunc::kSum || func == AggFunc::kAvg) && integral && v.type != TypeId::kDate &&
      v.type != TypeId::kDateTime) {
    return SumInts(v, groups, ascending, parts);
  }
  if ((func == AggFunc::kSum || func == AggFunc::kAvg) && IsFloat(v.type)) {
    if (!ascending) return false;  // Float sums depend on the order of the additions.
    for (size_t r = 0; r < frame.rows; ++r) {
      if (v.IsNull(r)) continue;
      Partial& p = parts[groups.of_row[r]];
      p.float_sum += v.floats[r];
      ++p.count;
    }
    return true;
  }
  if ((func == AggFunc::kMin || func == AggFunc::kMax) && (IsIntegral(v.type) || IsBytes(v.type))) {
    OMNIGRAPH_RETURN_IF_ERROR(MinMax(func, v, e, frame, groups, parts));
    return true;
  }
  if (!ascending) return false;
  for (size_t r = 0; r < frame.rows; ++r) parts[groups.of_row[r]].Add(func, ctx.Eval(e, frame, r));
  return true;
}

// The key expression of `step` when it qualifies: its one group key, a plain property of the
// `by` slot, compiled (which loads its column); nullopt otherwise.
Result<std::optional<CExpr>> KeyOf(ExecContext& ctx, const Frame& frame, const AggregateStep& step,
                                   int by_slot) {
  const Expr* key = nullptr;
  for (const AggregateColumn& c : step.columns) {
    if (c.aggregate) continue;
    if (key != nullptr) return std::optional<CExpr>();
    key = c.expr;
  }
  if (key == nullptr || key->kind != ExprKind::kProp || key->prop.text.starts_with("@") ||
      frame.Find(key->var.text) != by_slot) {
    return std::optional<CExpr>();
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(CExpr e, ctx.Compile(*key, frame));
  if (e.kind != CExpr::Kind::kProp || e.slot != by_slot || e.column == nullptr) {
    return std::optional<CExpr>();
  }
  return std::optional<CExpr>(std::move(e));
}

}  // namespace

Result<std::optional<std::vector<ResultGroup>>> GroupByValue(ExecContext& ctx, const Frame& frame,
                                                             const AggregateStep& step, int by_slot,
                                                             const AggregateArgs& args,
                                                             std::span<const int64_t> row_counts) {
  // Separate keys keep the entity path: no merging, and the top-k reads only its candidates'
  // keys (decision 206).
  using Groups = std::optional<std::vector<ResultGroup>>;
  if (step.keys_separate || frame.rows == 0) return Groups();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<CExpr> key, KeyOf(ctx, frame, step, by_slot));
  if (!key) return Groups();
  const Gathered values = Gather(frame, by_slot, *key->column);
  if (!IsIntegral(values.type) && !IsBytes(values.type)) return Groups();
  // Strings and Blobs by a hash of their bytes.
  const KeyGroups groups =
      IsBytes(values.type) ? GroupByHash(values, values.bytes) : GroupIntegral(values, frame.rows);
  // Whether every row is its own entity, in ascending dense order (see the file comment), and
  // each group's smallest dense index of the `by` slot: the group order.
  const std::vector<uint32_t>& by = frame.cols[by_slot];
  bool ascending = true;
  std::vector<uint32_t> least(groups.size(), UINT32_MAX);
  for (size_t r = 0; r < frame.rows; ++r) {
    ascending = ascending && (r == 0 || by[r - 1] < by[r]);
    uint32_t& l = least[groups.of_row[r]];
    l = std::min(l, by[r]);
  }
  std::vector<std::vector<Partial>> parts(args.funcs.size(), std::vector<Partial>(groups.size()));
  for (size_t a = 0; a < args.funcs.size(); ++a) {
    OMNIGRAPH_ASSIGN_OR_RETURN(
        bool done, Aggregate(ctx, frame, args, a, groups, ascending, row_counts, parts[a]));
    if (!done) return Groups();
  }
  std::vector<uint32_t> order(groups.size());
  for (uint32_t g = 0; g < order.size(); ++g) order[g] = g;
  std::sort(order.begin(), order.end(),
            [&](uint32_t x, uint32_t y) { return least[x] < least[y]; });
  std::vector<ResultGroup> out;
  out.reserve(order.size());
  for (uint32_t g : order) {
    ResultGroup& group = out.emplace_back();
    const uint32_t row = groups.first_row[g];
    group.keys.push_back(values.IsNull(row) ? Value::Null() : ctx.Eval(*key, frame, row));
    for (std::vector<Partial>& p : parts) group.partials.push_back(std::move(p[g]));
  }
  ctx.stats().value_grouped_rows += frame.rows;
  return Groups(std::move(out));
}

}  // namespace omnigraph::query::exec

// Grouping frame rows by one property's values, column at a time (aggregate_parts.h
// GroupByValue; docs/design/query-execution.md "Grouping by a value, column at a time").
//
// The key column is read at the frame rows in place (no copy), each row gets its group from a table
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
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "base/executor.h"
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

// A frame slot's column read at the frame rows in place: a reader below turns a row of the
// frame into its value without copying the column (a copy of a million-row column costs as much
// in fresh pages as the grouping itself). Which rows are null is gathered (empty when none is).
struct Values {
  TypeId type = TypeId::kNone;
  const TableImage::ChunkedColumn* column = nullptr;
  const uint32_t* dense = nullptr;
  // The frame's rows are the rows of the column's one chunk from 0 in order (a scan of a whole
  // table of at most kChunkRows rows): row r's value is the chunk's value r, read without the
  // dense indices, in loops the compiler can vectorize (decision 247).
  bool flat = false;
  std::vector<uint8_t> null;

  bool IsNull(size_t r) const { return !null.empty() && null[r] != 0; }
};

// `identity`: the slot's dense indices are 0, 1, … frame.rows − 1.
Values Read(const Frame& frame, int slot, const TableImage::ChunkedColumn& column, bool identity) {
  Values v;
  if (column.chunks.empty()) return v;
  v.type = column.chunks[0].type().id;
  v.column = &column;
  v.dense = frame.cols[slot].data();
  v.flat = identity && column.chunks.size() == 1 && frame.rows <= column.chunks[0].length();
  bool nulls = false;
  for (const table::Column& c : column.chunks) nulls = nulls || c.null_count() > 0;
  if (nulls) {
    using Chunked = TableImage::ChunkedColumn;
    v.null.resize(frame.rows);
    for (size_t r = 0; r < frame.rows; ++r)
      v.null[r] = column.chunk(v.dense[r]).IsNull(Chunked::row(v.dense[r]));
  }
  return v;
}

// A row's value of a fixed-width column as `Out`: integral values as int64 bits (U64
// reinterpreted), floats widened to double. `Flat`: the column's value r (Values::flat).
template <typename T, typename Out, bool Flat = false>
class FixedReader {
 public:
  explicit FixedReader(const Values& v) : dense_(v.dense) {
    for (const table::Column& c : v.column->chunks) base_.push_back(c.values<T>().data());
    first_ = base_.empty() ? nullptr : base_[0];
  }
  // A flat reader's values as stored, row r at index r (when they read as themselves: signed, or
  // U32 into int64).
  const T* flat_values() const
      requires(Flat&& std::is_integral_v<T>&& std::is_same_v<Out, int64_t> &&
               (std::is_signed_v<T> || sizeof(T) < 8)) {
    return first_;
  }
  Out operator()(size_t r) const {
    if constexpr (Flat) return static_cast<Out>(first_[r]);
    const uint32_t d = dense_[r];
    return static_cast<Out>(base_[d >> TableImage::kChunkShift][TableImage::ChunkedColumn::row(d)]);
  }

 private:
  const uint32_t* dense_;
  std::vector<const T*> base_;
  const T* first_ = nullptr;
};

// fn(std::bool_constant<v.flat>{}): a reader's Flat chosen at run time.
template <typename Fn>
auto WithFlat(const Values& v, Fn&& fn) {
  return v.flat ? fn(std::true_type{}) : fn(std::false_type{});
}

// A row's Bool as 0 or 1, and a row's String or Blob as a view into the column.
struct BoolReader {
  const Values* v;
  int64_t operator()(size_t r) const {
    const uint32_t d = v->dense[r];
    return v->column->chunk(d).BoolAt(TableImage::ChunkedColumn::row(d)) ? 1 : 0;
  }
};
struct BytesReader {
  const Values* v;
  std::string_view operator()(size_t r) const {
    const uint32_t d = v->dense[r];
    return v->column->chunk(d).StringAt(TableImage::ChunkedColumn::row(d));
  }
};

// A row's String or Blob as its first 8 bytes read as a big-endian integer (zero past its end),
// beside the bytes: two values whose prefixes differ order as their prefixes do (a value that
// ends within 8 bytes pads with zeros, below any byte the other has there, or equal to a zero
// byte, in which case the comparison goes on), so min and max compare the bytes only on equal
// prefixes — a million names of one table cost integer compares, not a memcmp each (decision
// 247).
template <bool Flat>
class BytesPrefixReader {
 public:
  struct Item {
    uint64_t prefix = 0;
    std::string_view bytes;
  };
  explicit BytesPrefixReader(const Values& v) : dense_(v.dense) {
    for (const table::Column& c : v.column->chunks) {
      chunks_.push_back({c.value_bytes(), c.offsets().data(), c.values_buffer().size()});
    }
  }
  Item operator()(size_t r) const {
    const uint32_t d = Flat ? static_cast<uint32_t>(r) : dense_[r];
    const Chunk& c = chunks_[Flat ? 0 : d >> TableImage::kChunkShift];
    const size_t row = TableImage::ChunkedColumn::row(d);
    const size_t start = static_cast<size_t>(c.offsets[row]);
    const size_t size = static_cast<size_t>(c.offsets[row + 1]) - start;
    uint64_t word = 0;
    if (start + 8 <= c.total) {
      std::memcpy(&word, c.bytes + start, 8);
    } else {
      std::memcpy(&word, c.bytes + start, c.total - start);
    }
    word = __builtin_bswap64(word);
    if (size < 8) word &= size == 0 ? 0 : ~uint64_t{0} << (64 - 8 * size);
    return {word, std::string_view(c.bytes + start, size)};
  }

 private:
  struct Chunk {
    const char* bytes;
    const int32_t* offsets;
    size_t total;
  };
  const uint32_t* dense_;
  std::vector<Chunk> chunks_;
};

// fn(reader) with the reader of an integral column (IsIntegral), values as int64 bits.
template <typename Fn>
auto WithIntegral(const Values& v, Fn&& fn) {
  if (v.type == TypeId::kBool) return fn(BoolReader{&v});
  return WithFlat(v, [&](auto flat) {
    switch (v.type) {
      case TypeId::kI32:
      case TypeId::kDate: return fn(FixedReader<int32_t, int64_t, flat>(v));
      case TypeId::kI64:
      case TypeId::kDateTime: return fn(FixedReader<int64_t, int64_t, flat>(v));
      case TypeId::kU32: return fn(FixedReader<uint32_t, int64_t, flat>(v));
      default: return fn(FixedReader<uint64_t, int64_t, flat>(v));
    }
  });
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

// Groups `rows` rows by a hash of their values (`get`); the null rows form one group.
template <typename Get>
KeyGroups GroupByHash(const Values& key, size_t rows, const Get& get) {
  KeyGroups out;
  out.of_row.resize(rows);
  uint32_t null_group = kNoGroup;
  std::unordered_map<decltype(get(0)), uint32_t> table;
  for (size_t r = 0; r < rows; ++r) {
    uint32_t* g = &null_group;
    if (!key.IsNull(r)) g = &table.try_emplace(get(r), kNoGroup).first->second;
    if (*g == kNoGroup) *g = out.Add(static_cast<uint32_t>(r));
    out.of_row[r] = *g;
  }
  return out;
}

// Groups `rows` rows by the integral values of `key` (`get`): a table indexed by value − min
// when the values span few codes, a hash otherwise; the null rows form one group.
template <typename Get>
KeyGroups GroupIntegral(const Values& key, size_t rows, const Get& get) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t r = 0; r < rows; ++r) {
    if (key.IsNull(r)) continue;
    lo = std::min(lo, get(r));
    hi = std::max(hi, get(r));
  }
  const uint64_t span = lo > hi ? 0 : static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span >= std::max<uint64_t>(kDenseSpanMin, rows)) return GroupByHash(key, rows, get);
  KeyGroups out;
  out.of_row.resize(rows);
  uint32_t null_group = kNoGroup;
  std::vector<uint32_t> table(lo > hi ? 0 : span + 1, kNoGroup);
  for (size_t r = 0; r < rows; ++r) {
    uint32_t& g = key.IsNull(r) ? null_group
                                : table[static_cast<uint64_t>(get(r)) - static_cast<uint64_t>(lo)];
    if (g == kNoGroup) g = out.Add(static_cast<uint32_t>(r));
    out.of_row[r] = g;
  }
  return out;
}

// min/max: per group the row of its best value (the first such row) and the count of non-null
// values; `better(x, y)` says whether value x beats value y.
template <typename Get, typename Better>
std::vector<uint32_t> BestRows(const Values& v, const KeyGroups& groups, const Get& get,
                               Better better, std::vector<Partial>& parts) {
  std::vector<uint32_t> best(groups.size(), kNoRow);
  std::vector<decltype(get(0))> best_value(groups.size());
  for (size_t r = 0; r < groups.of_row.size(); ++r) {
    if (v.IsNull(r)) continue;
    const uint32_t g = groups.of_row[r];
    ++parts[g].count;
    const auto x = get(r);
    if (best[g] == kNoRow || better(x, best_value[g])) {
      best[g] = static_cast<uint32_t>(r);
      best_value[g] = x;
    }
  }
  return best;
}

// Values that ascend with the rows, none null: a group's min is at its first row, its max at its
// last. Each group's row of its min (`min`) or max; every row is counted into its group.
std::vector<uint32_t> FirstOrLastRows(const KeyGroups& groups, bool min,
                                      std::vector<Partial>& parts) {
  std::vector<uint32_t> best = min ? groups.first_row : std::vector<uint32_t>(groups.size());
  std::vector<int64_t> counts(groups.size());
  for (size_t r = 0; r < groups.of_row.size(); ++r) {
    ++counts[groups.of_row[r]];
    if (!min) best[groups.of_row[r]] = static_cast<uint32_t>(r);
  }
  for (size_t g = 0; g < groups.size(); ++g) parts[g].count += counts[g];
  return best;
}

// `ascending`: the frame's rows ascend in the dense order of `e`'s slot.
Status MinMax(AggFunc func, const Values& v, const CExpr& e, const Frame& frame,
              const KeyGroups& groups, bool ascending, std::vector<Partial>& parts) {
  const bool min = func == AggFunc::kMin;
  std::vector<uint32_t> best;
  if (ascending && v.column->ascending && v.null.empty()) {
    best = FirstOrLastRows(groups, min, parts);
  } else if (IsBytes(v.type)) {
    best = WithFlat(v, [&](auto flat) {
      using Item = typename BytesPrefixReader<flat>::Item;
      return BestRows(
          v, groups, BytesPrefixReader<flat>(v),
          [&](const Item& x, const Item& y) {
            if (x.prefix != y.prefix) return min ? x.prefix < y.prefix : x.prefix > y.prefix;
            return min ? x.bytes < y.bytes : x.bytes > y.bytes;
          },
          parts);
    });
  } else if (v.type == TypeId::kU64) {
    best = WithFlat(v, [&](auto flat) {
      return BestRows(
          v, groups, FixedReader<uint64_t, uint64_t, flat>(v),
          [&](uint64_t x, uint64_t y) { return min ? x < y : x > y; }, parts);
    });
  } else {
    best = WithIntegral(v, [&](const auto& get) {
      return BestRows(
          v, groups, get, [&](int64_t x, int64_t y) { return min ? x < y : x > y; }, parts);
    });
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (best[g] == kNoRow) continue;
    const uint32_t dense = frame.cols[e.slot][best[g]];
    parts[g].best = ValueAt(e.column->chunk(dense), TableImage::ChunkedColumn::row(dense));
  }
  return Status::Ok();
}

// sum/avg over integers (I32, I64, U32, U64; `get` gives int64 bits) as Partial::Add adds them,
// in row order; false when the order matters (not `ascending`) and the sums might overflow in
// some order.
template <typename Get>
bool SumInts(const Values& v, const Get& get, const KeyGroups& groups, bool ascending,
             std::vector<Partial>& parts) {
  const size_t rows = groups.of_row.size();
  const bool u64 = v.type == TypeId::kU64;
  if (!ascending) {
    uint64_t total = 0;
    for (size_t r = 0; r < rows; ++r) {
      if (v.IsNull(r)) continue;
      const int64_t x = get(r);
      const uint64_t magnitude =
          u64 || x >= 0 ? static_cast<uint64_t>(x) : 0 - static_cast<uint64_t>(x);
      if (__builtin_add_overflow(total, magnitude, &total)) return false;
    }
    if (total > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  }
  for (size_t r = 0; r < rows; ++r) {
    if (v.IsNull(r)) continue;
    Partial& p = parts[groups.of_row[r]];
    const int64_t x = get(r);
    if (u64 && x < 0) {
      p.float_sum += static_cast<double>(static_cast<uint64_t>(x));
    } else {
      p.AddInt(x);
    }
    ++p.count;
  }
  return true;
}

// Float sums in row order (only when `ascending`, see the file comment).
template <typename Get>
void SumFloats(const Values& v, const Get& get, const KeyGroups& groups,
               std::vector<Partial>& parts) {
  for (size_t r = 0; r < groups.of_row.size(); ++r) {
    if (v.IsNull(r)) continue;
    Partial& p = parts[groups.of_row[r]];
    p.float_sum += get(r);
    ++p.count;
  }
}

// Aggregate `a` over every row into `parts` (one per group), column at a time. False when its
// argument is not one this path computes (the caller then groups by entities).
// `ascending`: the `by_slot`'s dense indices ascend strictly; `identity`: they are 0 …
// frame.rows − 1.
Result<bool> Aggregate(ExecContext& ctx, const Frame& frame, AggregateArgs& args, size_t a,
                       const KeyGroups& groups, int by_slot, bool ascending, bool identity,
                       std::span<const int64_t> row_counts, std::vector<Partial>& parts) {
  const AggFunc func = args.funcs[a];
  if (args.deferred[a] != nullptr && ascending && args.exprs[a].slot == by_slot) {
    // A min or max of a String node key over rows ascending in dense order: the key is the id
    // and the ids ascend, so only each group's first or last row's id is read (decision 254).
    const int slot = args.exprs[a].slot;
    const std::vector<uint32_t> best = FirstOrLastRows(groups, func == AggFunc::kMin, parts);
    for (size_t g = 0; g < groups.size(); ++g) {
      OMNIGRAPH_ASSIGN_OR_RETURN(const std::string_view id,
                                 frame.slots[slot].image->IdAt(frame.cols[slot][best[g]]));
      parts[g].best = Value::String(std::string(id));
    }
    ctx.stats().key_ids_read += groups.size();
    return true;
  }
  OMNIGRAPH_RETURN_IF_ERROR(CompileDeferred(ctx, frame, args, a));
  const CExpr& e = args.exprs[a];
  if (args.counts_rows[a]) {
    // Into a plain array first: a Partial is wide, a count is 8 bytes.
    std::vector<int64_t> counts(groups.size());
    if (row_counts.empty()) {
      for (size_t r = 0; r < frame.rows; ++r) ++counts[groups.of_row[r]];
    } else {
      for (size_t r = 0; r < frame.rows; ++r) counts[groups.of_row[r]] += row_counts[r];
    }
    for (size_t g = 0; g < groups.size(); ++g) parts[g].count += counts[g];
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
  const Values v = Read(frame, e.slot, *e.column, identity && e.slot == by_slot);
  const bool integral = IsIntegral(v.type) && v.type != TypeId::kBool;
  if (func == AggFunc::kCount) {
    for (size_t r = 0; r < frame.rows; ++r) parts[groups.of_row[r]].count += v.IsNull(r) ? 0 : 1;
    return true;
  }
  if ((func == AggFunc::kSum || func == AggFunc::kAvg) && integral && v.type != TypeId::kDate &&
      v.type != TypeId::kDateTime) {
    return WithIntegral(v,
                        [&](const auto& get) { return SumInts(v, get, groups, ascending, parts); });
  }
  if ((func == AggFunc::kSum || func == AggFunc::kAvg) && IsFloat(v.type)) {
    if (!ascending) return false;  // Float sums depend on the order of the additions.
    WithFlat(v, [&](auto flat) {
      if (v.type == TypeId::kF32) {
        SumFloats(v, FixedReader<float, double, flat>(v), groups, parts);
      } else {
        SumFloats(v, FixedReader<double, double, flat>(v), groups, parts);
      }
    });
    return true;
  }
  if ((func == AggFunc::kMin || func == AggFunc::kMax) && (IsIntegral(v.type) || IsBytes(v.type))) {
    OMNIGRAPH_RETURN_IF_ERROR(
        MinMax(func, v, e, frame, groups, ascending && e.slot == by_slot, parts));
    return true;
  }
  if (!ascending) return false;
  for (size_t r = 0; r < frame.rows; ++r) parts[groups.of_row[r]].Add(func, ctx.Eval(e, frame, r));
  return true;
}

// The fused path (decision 258). An integral key whose values span few codes over rows that
// ascend in the `by` slot's dense order, with aggregates that are counts of rows (weighted by
// `row_counts` when given), counts of a column without nulls and at most one min or max of an
// integral column (not U64): one pass over the rows adds each row into its key code's totals —
// no row→group vector, no pass per aggregate — on two threads over the two halves of a large
// frame, whose totals then merge (first rows and best rows: the first half's on ties, so the
// result is the one-thread pass's). The groups are then the codes seen, in order of their first
// row, which is the group order when the rows ascend.
constexpr size_t kFusedSplitRows = size_t{1} << 16;

struct CodeTotals {
  explicit CodeTotals(size_t codes)
      : first(codes, kNoRow),
        rows(codes, 0),
        present(codes, 0),
        best(codes, 0),
        best_row(codes, kNoRow) {}
  std::vector<uint32_t> first;     // The code's first row; kNoRow when it has none.
  std::vector<int64_t> rows;       // Its rows (weighted by row_counts when given).
  std::vector<int64_t> present;    // Its rows whose min/max argument is not null.
  std::vector<int64_t> best;       // The argument's best value so far ...
  std::vector<uint32_t> best_row;  // ... and the first row holding it; kNoRow when none.

  // Adds code `from` of `o` (totals of rows after all of these) into code `to`.
  void Merge(uint32_t to, const CodeTotals& o, uint32_t from, bool min) {
    if (first[to] == kNoRow) first[to] = o.first[from];
    rows[to] += o.rows[from];
    present[to] += o.present[from];
    if (o.best_row[from] != kNoRow &&
        (best_row[to] == kNoRow || (min ? o.best[from] < best[to] : o.best[from] > best[to]))) {
      best[to] = o.best[from];
      best_row[to] = o.best_row[from];
    }
  }
};

// Rows [begin, end) into `t`: `get_key(r)` is row r's key value (its code is value − lo; a
// null key's code is `null_code`), `arg` (when kArg) the argument read by `get_arg`, whose best
// is its smallest (kMin) or largest; kKeyNulls and kArgNulls say whether either has nulls (as
// branches in the loop they cost a third of it). Every flag doubles the code made for each pair
// of column readers, so an argument is taken only read flat beside a key read flat, each of the
// three stored types that read as themselves (FusedGroups).
template <bool kWeighted, bool kArg, bool kMin, bool kKeyNulls, bool kArgNulls, typename Key,
          typename Arg>
void AddRows(const Values& key, const Key& get_key, int64_t lo, uint32_t null_code,
             const Values* arg, const Arg& get_arg, std::span<const int64_t> row_counts,
             size_t begin, size_t end, CodeTotals& t) {
  for (size_t r = begin; r < end; ++r) {
    uint32_t c;
    if (kKeyNulls && key.IsNull(r)) {
      c = null_code;
    } else {
      c = static_cast<uint32_t>(static_cast<uint64_t>(get_key(r)) - static_cast<uint64_t>(lo));
    }
    if (t.first[c] == kNoRow) t.first[c] = static_cast<uint32_t>(r);
    if constexpr (kWeighted) {
      t.rows[c] += row_counts[r];
    } else {
      ++t.rows[c];
    }
    if constexpr (kArg) {
      if (kArgNulls && arg->IsNull(r)) continue;
      ++t.present[c];
      const int64_t x = get_arg(r);
      if (t.best_row[c] == kNoRow || (kMin ? x < t.best[c] : x > t.best[c])) {
        t.best[c] = x;
        t.best_row[c] = static_cast<uint32_t>(r);
      }
    }
  }
}

// The smallest and largest of `n` values (INT64_MAX, INT64_MIN when none), in the widest vectors
// the processor has: the key's span is a pass of its own over a million rows.
template <typename T>
std::pair<int64_t, int64_t> ValuesSpan(const T* v, size_t n) {
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::min();
  for (size_t i = 0; i < n; ++i) {
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  if (n == 0) return {INT64_MAX, INT64_MIN};
  return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}
template <typename T>
__attribute__((target("avx2"))) std::pair<int64_t, int64_t> ValuesSpanAvx2(const T* v, size_t n) {
  return ValuesSpan(v, n);
}
template <typename T>
std::pair<int64_t, int64_t> FastValuesSpan(const T* v, size_t n) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 ? ValuesSpanAvx2(v, n) : ValuesSpan(v, n);
}

// The smallest and largest non-null values of rows [begin, end) of an integral column.
template <typename Get>
std::pair<int64_t, int64_t> Span(const Values& v, const Get& get, size_t begin, size_t end) {
  if constexpr (requires { get.flat_values(); }) {
    if (v.null.empty()) return FastValuesSpan(get.flat_values() + begin, end - begin);
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t r = begin; r < end; ++r) {
    if (v.IsNull(r)) continue;
    lo = std::min(lo, get(r));
    hi = std::max(hi, get(r));
  }
  return {lo, hi};
}

// fn(0) and fn(1) as tasks of `threads` (the halves of a large frame), or fn(0) alone.
template <typename Fn>
void ForHalves(size_t halves, Executor& threads, const Fn& fn) {
  if (halves == 1) {
    fn(0);
    return;
  }
  TaskGroup group(threads);
  group.Add([&] {
    fn(1);
    return Status::Ok();
  });
  fn(0);
  // The tasks cannot fail.
  (void)group.Wait();
}

// A key span [lo, hi] (lo > hi: no non-null value) is dense when it has fewer codes than
// max(kDenseSpanMin, rows) (GroupIntegral's rule); its null code is the one after its values'.
bool DenseSpan(int64_t lo, int64_t hi, size_t rows) {
  const uint64_t span = lo > hi ? 0 : static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  return span < std::max<uint64_t>(kDenseSpanMin, rows);
}
uint32_t NullCode(int64_t lo, int64_t hi) {
  return lo > hi ? 0
                 : static_cast<uint32_t>(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1);
}

// One half's pass: its own span, and its rows into totals coded from its own smallest value.
struct HalfTotals {
  int64_t lo = INT64_MAX;
  int64_t hi = INT64_MIN;
  std::optional<CodeTotals> totals;  // None when its span is too wide.
};

// The fused pass over every row, or nullopt when the key's span is too wide (GroupIntegral's
// rule). A frame of kFusedSplitRows rows or more is always split into the same two halves, each
// one task of `threads` (on two threads when it has them) that takes its own span and adds its
// rows; the halves' totals then merge by value, the first half's winning ties: the division of
// work is fixed and the result is the one-thread pass's.
std::optional<CodeTotals> AddAllRows(const Values& key, const Values* arg, bool min,
                                     std::span<const int64_t> row_counts, size_t rows,
                                     Executor& threads) {
  const size_t halves = rows < kFusedSplitRows ? 1 : 2;
  HalfTotals half[2];
  ForHalves(halves, threads, [&](size_t h) {
    const size_t begin = h == 0 ? 0 : rows / 2;
    const size_t end = halves == 1 || h == 1 ? rows : rows / 2;
    HalfTotals& out = half[h];
    WithIntegral(key, [&](const auto& get_key) {
      std::tie(out.lo, out.hi) = Span(key, get_key, begin, end);
      if (!DenseSpan(out.lo, out.hi, rows)) return;
      const uint32_t null_code = NullCode(out.lo, out.hi);
      out.totals.emplace(null_code + 1);
      const auto rows_into = [&](auto weighted, auto has_arg, auto min_flag, const auto& get_arg) {
        const auto run = [&](auto key_nulls, auto arg_nulls) {
          AddRows<weighted, has_arg, min_flag, key_nulls, arg_nulls>(
              key, get_key, out.lo, null_code, arg, get_arg, row_counts, begin, end, *out.totals);
        };
        const bool key_nulls = !key.null.empty();
        const bool arg_nulls = has_arg && !arg->null.empty();
        if (key_nulls) {
          arg_nulls ? run(std::true_type{}, std::true_type{})
                    : run(std::true_type{}, std::false_type{});
        } else {
          arg_nulls ? run(std::false_type{}, std::true_type{})
                    : run(std::false_type{}, std::false_type{});
        }
      };
      if (arg != nullptr) {
        if constexpr (requires { get_key.flat_values(); }) {
          WithIntegral(*arg, [&](const auto& get_arg) {
            if constexpr (requires { get_arg.flat_values(); }) {
              if (min) {
                rows_into(std::false_type{}, std::true_type{}, std::true_type{}, get_arg);
              } else {
                rows_into(std::false_type{}, std::true_type{}, std::false_type{}, get_arg);
              }
            }
          });
        }
        return;
      }
      const auto none = [](size_t) { return int64_t{0}; };
      if (row_counts.empty()) {
        rows_into(std::false_type{}, std::false_type{}, std::true_type{}, none);
      } else {
        rows_into(std::true_type{}, std::false_type{}, std::true_type{}, none);
      }
    });
  });
  if (halves == 1) return std::move(half[0].totals);
  const int64_t lo = std::min(half[0].lo, half[1].lo);
  const int64_t hi = std::max(half[0].hi, half[1].hi);
  if (!half[0].totals || !half[1].totals || !DenseSpan(lo, hi, rows)) return std::nullopt;
  const uint32_t null_code = NullCode(lo, hi);
  CodeTotals all(null_code + 1);
  for (const HalfTotals& h : half) {
    const uint32_t own_null = NullCode(h.lo, h.hi);
    for (uint32_t c = 0; c <= own_null; ++c) {
      const uint32_t to =
          c == own_null
              ? null_code
              : static_cast<uint32_t>(static_cast<uint64_t>(h.lo) + c - static_cast<uint64_t>(lo));
      all.Merge(to, *h.totals, c, min);
    }
  }
  return all;
}

// The groups by the fused path, or nullopt when the key or an aggregate does not qualify
// (nothing is read or charged then).
Result<std::optional<std::vector<ResultGroup>>> FusedGroups(ExecContext& ctx, const Frame& frame,
                                                            const CExpr& key, const Values& values,
                                                            AggregateArgs& args, bool identity,
                                                            int by_slot,
                                                            std::span<const int64_t> row_counts) {
  using Groups = std::optional<std::vector<ResultGroup>>;
  if (!IsIntegral(values.type)) return Groups();
  int arg_index = -1;
  for (size_t a = 0; a < args.funcs.size(); ++a) {
    if (args.deferred[a] != nullptr) return Groups();
    if (args.counts_rows[a]) continue;
    const CExpr& e = args.exprs[a];
    if (!row_counts.empty() || e.kind != CExpr::Kind::kProp || e.column == nullptr ||
        e.column->chunks.empty()) {
      return Groups();
    }
    const TypeId type = e.column->chunks[0].type().id;
    bool nulls = false;
    for (const table::Column& c : e.column->chunks) nulls = nulls || c.null_count() > 0;
    if (args.funcs[a] == AggFunc::kCount && !nulls) continue;
    const bool min_max = args.funcs[a] == AggFunc::kMin || args.funcs[a] == AggFunc::kMax;
    if (!min_max || !IsIntegral(type) || type == TypeId::kU64) return Groups();
    if (arg_index >= 0) return Groups();
    // An argument only beside a key read flat as its stored values (AddRows's instances).
    const bool flat_key =
        values.flat && values.type != TypeId::kBool && values.type != TypeId::kU64;
    if (!flat_key) return Groups();
    arg_index = static_cast<int>(a);
  }
  std::optional<Values> arg;
  bool min = true;
  if (arg_index >= 0) {
    const CExpr& e = args.exprs[arg_index];
    arg = Read(frame, e.slot, *e.column, identity && e.slot == by_slot);
    min = args.funcs[arg_index] == AggFunc::kMin;
    if (!arg->flat || arg->type == TypeId::kBool || arg->type == TypeId::kU64) return Groups();
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Executor * threads, ctx.Threads(*frame.slots[by_slot].type));
  const std::optional<CodeTotals> all =
      AddAllRows(values, arg ? &*arg : nullptr, min, row_counts, frame.rows, *threads);
  if (!all) return Groups();
  const CodeTotals& totals = *all;
  const size_t codes = totals.first.size();
  const size_t null_code = codes - 1;
  std::vector<uint32_t> seen;
  for (uint32_t c = 0; c < codes; ++c) {
    if (totals.first[c] != kNoRow) seen.push_back(c);
  }
  std::sort(seen.begin(), seen.end(),
            [&](uint32_t x, uint32_t y) { return totals.first[x] < totals.first[y]; });
  std::vector<ResultGroup> out;
  out.reserve(seen.size());
  for (uint32_t c : seen) {
    ResultGroup& group = out.emplace_back();
    group.keys.push_back(c == null_code ? Value::Null() : ctx.Eval(key, frame, totals.first[c]));
    for (size_t a = 0; a < args.funcs.size(); ++a) {
      Partial& p = group.partials.emplace_back();
      if (static_cast<int>(a) != arg_index) {
        p.count = totals.rows[c];
        continue;
      }
      p.count = totals.present[c];
      if (totals.best_row[c] == kNoRow) continue;
      const CExpr& e = args.exprs[a];
      const uint32_t dense = frame.cols[e.slot][totals.best_row[c]];
      p.best = ValueAt(e.column->chunk(dense), TableImage::ChunkedColumn::row(dense));
    }
  }
  return Groups(std::move(out));
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
                                                             AggregateArgs& args,
                                                             std::span<const int64_t> row_counts) {
  // Separate keys keep the entity path: no merging, and the top-k reads only its candidates'
  // keys (decision 206).
  using Groups = std::optional<std::vector<ResultGroup>>;
  if (step.keys_separate || frame.rows == 0) return Groups();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<CExpr> key, KeyOf(ctx, frame, step, by_slot));
  if (!key) return Groups();
  // Whether every row is its own entity, in ascending dense order (see the file comment), and
  // whether those are every dense index from 0 (a scan of the whole table: flat reads).
  const std::vector<uint32_t>& by = frame.cols[by_slot];
  bool ascending = true;
  for (size_t r = 1; r < frame.rows; ++r) ascending &= by[r - 1] < by[r];
  const bool identity = ascending && by[0] == 0 && by[frame.rows - 1] == frame.rows - 1;
  const Values values = Read(frame, by_slot, *key->column, identity);
  if (!IsIntegral(values.type) && !IsBytes(values.type)) return Groups();
  if (ascending) {
    OMNIGRAPH_ASSIGN_OR_RETURN(
        Groups fused, FusedGroups(ctx, frame, *key, values, args, identity, by_slot, row_counts));
    if (fused) {
      ctx.stats().value_grouped_rows += frame.rows;
      return fused;
    }
  }
  // Strings and Blobs by a hash of their bytes.
  const KeyGroups groups = IsBytes(values.type)
                               ? GroupByHash(values, frame.rows, BytesReader{&values})
                               : WithIntegral(values, [&](const auto& get) {
                                   return GroupIntegral(values, frame.rows, get);
                                 });
  // Each group's smallest dense index of the `by` slot: the group order (ascending, its first
  // row's).
  std::vector<uint32_t> least(groups.size(), UINT32_MAX);
  if (ascending) {
    for (size_t g = 0; g < groups.size(); ++g) least[g] = by[groups.first_row[g]];
  } else {
    for (size_t r = 0; r < frame.rows; ++r) {
      uint32_t& l = least[groups.of_row[r]];
      l = std::min(l, by[r]);
    }
  }
  std::vector<std::vector<Partial>> parts(args.funcs.size(), std::vector<Partial>(groups.size()));
  for (size_t a = 0; a < args.funcs.size(); ++a) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool done, Aggregate(ctx, frame, args, a, groups, by_slot, ascending,
                                                    identity, row_counts, parts[a]));
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

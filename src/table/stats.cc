#include "table/stats.h"

#include <cmath>
#include <string_view>

namespace omnigraph::table {

namespace {

template <typename T>
void FixedMinMax(const Column& column, ColumnStats& stats) {
  std::span<const T> values = column.values<T>();
  bool any = false;
  T lo{}, hi{};
  for (uint64_t i = 0; i < values.size(); ++i) {
    if (!column.IsValid(i)) continue;
    const T v = values[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) continue;
    }
    if (!any) {
      lo = hi = v;
      any = true;
    } else {
      lo = v < lo ? v : lo;
      hi = hi < v ? v : hi;
    }
  }
  if (any) {
    stats.min = StatValue(lo);
    stats.max = StatValue(hi);
    stats.min_exact = stats.max_exact = true;
  }
}

void BoolMinMax(const Column& column, ColumnStats& stats) {
  bool seen[2] = {false, false};
  for (uint64_t i = 0; i < column.length(); ++i) {
    if (column.IsValid(i)) seen[column.BoolAt(i) ? 1 : 0] = true;
  }
  if (!seen[0] && !seen[1]) return;
  stats.min = StatValue(!seen[0]);
  stats.max = StatValue(seen[1]);
  stats.min_exact = stats.max_exact = true;
}

void StringMinMax(const Column& column, ColumnStats& stats) {
  bool any = false;
  std::string_view lo, hi;
  for (uint64_t i = 0; i < column.length(); ++i) {
    if (!column.IsValid(i)) continue;
    std::string_view v = column.StringAt(i);
    // std::string_view compares with char_traits<char>, which compares as unsigned char.
    if (!any) {
      lo = hi = v;
      any = true;
    } else {
      lo = v < lo ? v : lo;
      hi = hi < v ? v : hi;
    }
  }
  if (!any) return;
  stats.min_exact = lo.size() <= kStatBytesMax;
  stats.min = StatValue(std::string(lo.substr(0, kStatBytesMax)));
  if (hi.size() <= kStatBytesMax) {
    stats.max = StatValue(std::string(hi));
    stats.max_exact = true;
    return;
  }
  // The shortest upper bound within the limit: drop trailing 0xff bytes of the prefix and
  // increment the last remaining byte. A prefix of only 0xff bytes has no such bound.
  std::string bound(hi.substr(0, kStatBytesMax));
  while (!bound.empty() && static_cast<uint8_t>(bound.back()) == 0xff) bound.pop_back();
  if (bound.empty()) return;
  bound.back() = static_cast<char>(static_cast<uint8_t>(bound.back()) + 1);
  stats.max = StatValue(std::move(bound));
  stats.max_exact = false;
}

}  // namespace

ColumnStats ComputeStats(const Column& column) {
  ColumnStats stats;
  stats.null_count = column.null_count();
  switch (column.type().id) {
    case TypeId::kBool: BoolMinMax(column, stats); break;
    case TypeId::kI32:
    case TypeId::kDate: FixedMinMax<int32_t>(column, stats); break;
    case TypeId::kI64:
    case TypeId::kDateTime: FixedMinMax<int64_t>(column, stats); break;
    case TypeId::kU32: FixedMinMax<uint32_t>(column, stats); break;
    case TypeId::kU64: FixedMinMax<uint64_t>(column, stats); break;
    case TypeId::kF32: FixedMinMax<float>(column, stats); break;
    case TypeId::kF64: FixedMinMax<double>(column, stats); break;
    case TypeId::kString:
    case TypeId::kBinary: StringMinMax(column, stats); break;
    default: break;
  }
  return stats;
}

bool StatValueMatches(const StatValue& value, TypeId id) {
  switch (id) {
    case TypeId::kBool: return std::holds_alternative<bool>(value);
    case TypeId::kI32:
    case TypeId::kDate: return std::holds_alternative<int32_t>(value);
    case TypeId::kI64:
    case TypeId::kDateTime: return std::holds_alternative<int64_t>(value);
    case TypeId::kU32: return std::holds_alternative<uint32_t>(value);
    case TypeId::kU64: return std::holds_alternative<uint64_t>(value);
    case TypeId::kF32: return std::holds_alternative<float>(value);
    case TypeId::kF64: return std::holds_alternative<double>(value);
    case TypeId::kString:
    case TypeId::kBinary: return std::holds_alternative<std::string>(value);
    default: return false;
  }
}

}  // namespace omnigraph::table

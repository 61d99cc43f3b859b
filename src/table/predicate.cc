#include "table/predicate.h"

#include <cmath>
#include <string_view>

namespace omnigraph::table {

namespace {

// Three-way comparison of two values of one alternative; floats numerically (never NaN here).
template <typename T>
int Compare(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, std::string>) {
    const int c = std::string_view(a).compare(std::string_view(b));
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  } else {
    return a < b ? -1 : b < a ? 1 : 0;
  }
}

int CompareStat(const StatValue& a, const StatValue& b) {
  return std::visit(
      [&](const auto& x) { return Compare(x, std::get<std::decay_t<decltype(x)>>(b)); }, a);
}

bool IsNaN(const StatValue& v) {
  if (const float* f = std::get_if<float>(&v)) return std::isnan(*f);
  if (const double* d = std::get_if<double>(&v)) return std::isnan(*d);
  return false;
}

// True when `value` satisfies the predicate's bounds; `cmp(bound)` is value <=> bound.
template <typename Cmp>
bool WithinBounds(const Predicate& p, Cmp cmp) {
  if (p.lower) {
    const int c = cmp(*p.lower);
    if (c < 0 || (c == 0 && !p.lower_inclusive)) return false;
  }
  if (p.upper) {
    const int c = cmp(*p.upper);
    if (c > 0 || (c == 0 && !p.upper_inclusive)) return false;
  }
  return true;
}

template <typename T>
void FilterFixed(const Column& column, const Predicate& p, std::vector<uint32_t>& selection) {
  const T* values = column.values<T>().data();
  // Plain values and flags rather than std::optional<T>: the bounds are read in the hot loop.
  const bool has_lower = p.lower.has_value(), has_upper = p.upper.has_value();
  const T lower = has_lower ? std::get<T>(*p.lower) : T{};
  const T upper = has_upper ? std::get<T>(*p.upper) : T{};
  size_t kept = 0;
  for (uint32_t row : selection) {
    if (column.IsNull(row)) continue;
    const T v = values[row];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) continue;
    }
    if (has_lower && (v < lower || (v == lower && !p.lower_inclusive))) continue;
    if (has_upper && (v > upper || (v == upper && !p.upper_inclusive))) continue;
    selection[kept++] = row;
  }
  selection.resize(kept);
}

void FilterBytes(const Column& column, const Predicate& p, std::vector<uint32_t>& selection) {
  size_t kept = 0;
  for (uint32_t row : selection) {
    if (column.IsNull(row)) continue;
    const std::string_view v = column.StringAt(row);
    if (!WithinBounds(p, [&](const StatValue& bound) {
          const int c = v.compare(std::string_view(std::get<std::string>(bound)));
          return c < 0 ? -1 : c > 0 ? 1 : 0;
        })) {
      continue;
    }
    selection[kept++] = row;
  }
  selection.resize(kept);
}

void FilterBool(const Column& column, const Predicate& p, std::vector<uint32_t>& selection) {
  size_t kept = 0;
  for (uint32_t row : selection) {
    if (column.IsNull(row)) continue;
    const StatValue v = column.BoolAt(row);
    if (!WithinBounds(p, [&](const StatValue& bound) { return CompareStat(v, bound); })) continue;
    selection[kept++] = row;
  }
  selection.resize(kept);
}

}  // namespace

Status ValidatePredicate(const Predicate& predicate, const Schema& schema) {
  const Field* field = nullptr;
  for (const Field& f : schema) {
    if (f.id == predicate.field_id) field = &f;
  }
  if (field == nullptr) {
    return InvalidArgument("predicate on field " + std::to_string(predicate.field_id) +
                           ", which the table does not have");
  }
  if (!IsScalar(field->type.id)) {
    return InvalidArgument("predicate on field '" + field->name + "' of type " +
                           field->type.ToString() + "; only scalar columns can be compared");
  }
  for (const std::optional<StatValue>* bound : {&predicate.lower, &predicate.upper}) {
    if (!bound->has_value()) continue;
    if (!StatValueMatches(**bound, field->type.id)) {
      return InvalidArgument("predicate bound on field '" + field->name +
                             "' does not hold a value of type " + field->type.ToString());
    }
    if (IsNaN(**bound)) {
      return InvalidArgument("predicate bound on field '" + field->name + "' is NaN");
    }
  }
  return Status::Ok();
}

bool StatsMayMatch(const ColumnMeta& column, uint64_t rows, const Predicate& predicate) {
  if (column.stats.null_count >= rows) return false;
  // Inexact string bounds are still bounds: min <= every value <= max.
  if (predicate.lower && column.stats.max) {
    const int c = CompareStat(*column.stats.max, *predicate.lower);
    if (c < 0 || (c == 0 && !predicate.lower_inclusive)) return false;
  }
  if (predicate.upper && column.stats.min) {
    const int c = CompareStat(*column.stats.min, *predicate.upper);
    if (c > 0 || (c == 0 && !predicate.upper_inclusive)) return false;
  }
  return true;
}

void FilterRows(const Column& column, const Predicate& predicate,
                std::vector<uint32_t>& selection) {
  switch (column.type().id) {
    case TypeId::kBool: FilterBool(column, predicate, selection); break;
    case TypeId::kI32:
    case TypeId::kDate: FilterFixed<int32_t>(column, predicate, selection); break;
    case TypeId::kI64:
    case TypeId::kDateTime: FilterFixed<int64_t>(column, predicate, selection); break;
    case TypeId::kU32: FilterFixed<uint32_t>(column, predicate, selection); break;
    case TypeId::kU64: FilterFixed<uint64_t>(column, predicate, selection); break;
    case TypeId::kF32: FilterFixed<float>(column, predicate, selection); break;
    case TypeId::kF64: FilterFixed<double>(column, predicate, selection); break;
    case TypeId::kString:
    case TypeId::kBinary: FilterBytes(column, predicate, selection); break;
    default: selection.clear(); break;
  }
}

}  // namespace omnigraph::table

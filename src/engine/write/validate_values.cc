// Write validation's row-local value checks: enum membership, @range and @check (validate.h).
#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

#include "base/sorted_records.h"
#include "base/string_index.h"
#include "engine/write/validate_internal.h"
#include "query/exec/column_codec.h"
#include "schema/keys.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {

namespace validate_internal {

std::string NumberText(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (v == std::trunc(v) && std::fabs(v) < 1e17) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v));
    return std::string(buf, end);
  }
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string ValueText(const Value& v) {
  return v.tag() == Value::Tag::kString ? v.string_value() : v.DebugString();
}

std::optional<double> NumericOf(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::kInt: return static_cast<double>(v.int_value());
    case Value::Tag::kUInt: return static_cast<double>(v.uint_value());
    case Value::Tag::kFloat: return v.float_value();
    default: return std::nullopt;
  }
}

uint32_t ColumnIdOf(const schema::FieldRef& f) {
  if (!f.is_system()) return static_cast<uint32_t>(f.property_id);
  return f.name == "dst" ? table::kDstFieldId : table::kSrcFieldId;
}

}  // namespace validate_internal

using validate_internal::ColumnIdOf;
using validate_internal::NumberText;
using validate_internal::NumericOf;
using validate_internal::Violation;

Status ValidateRows(const schema::TypeDef& type, const table::ColumnBatch& rows,
                    const RowLabel& label) {
  const std::string key = type.table_key();
  // Enums.
  for (const schema::PropertyDef& p : type.properties) {
    if (!p.type.is_enum() || p.type.list) continue;  // Enum lists are not in the language.
    const table::Column* col = rows.FindColumn(static_cast<uint32_t>(p.id));
    if (col == nullptr) continue;
    const std::set<std::string_view> allowed(p.type.enum_values.begin(), p.type.enum_values.end());
    auto bad = [&](uint64_t r, std::string_view v) {
      std::string expected;
      for (const std::string& a : p.type.enum_values)
        expected += (expected.empty() ? "" : ", ") + a;
      return Violation(label, key, r,
                       "invalid enum value '" + std::string(v) + "' for " + type.name + "." +
                           p.name + " (expected: " + expected + ")");
    };
    for (uint64_t r = 0; r < rows.num_rows(); ++r) {
      if (col->IsNull(r)) continue;
      if (!allowed.contains(col->StringAt(r))) {
        return bad(r, col->StringAt(r));
      }
    }
  }
  for (const schema::Constraint& c : type.constraints) {
    if (c.kind != schema::ConstraintKind::kRange && c.kind != schema::ConstraintKind::kCheck) {
      continue;
    }
    const schema::FieldRef& f = c.fields.at(0);
    const table::Column* col = rows.FindColumn(ColumnIdOf(f));
    if (col == nullptr) continue;
    const std::string what = type.name + "." + f.name;
    if (c.kind == schema::ConstraintKind::kRange) {
      for (uint64_t r = 0; r < rows.num_rows(); ++r) {
        std::optional<double> v = NumericOf(query::ValueAt(*col, r));
        if (!v) continue;  // Null.
        if (std::isnan(*v)) {
          return Violation(label, key, r, "@range violation on " + what + ": value is NaN");
        }
        if (c.min && *v < c.min->AsDouble()) {
          return Violation(label, key, r,
                           "@range violation on " + what + ": value " + NumberText(*v) + " < min " +
                               NumberText(c.min->AsDouble()));
        }
        if (c.max && *v > c.max->AsDouble()) {
          return Violation(label, key, r,
                           "@range violation on " + what + ": value " + NumberText(*v) + " > max " +
                               NumberText(c.max->AsDouble()));
        }
      }
    } else {
      if (col->type().id != table::TypeId::kString) continue;
      RE2 re(c.pattern, RE2::Quiet);
      if (!re.ok()) {
        return InvalidArgument("@check on " + what + " has invalid regex '" + c.pattern +
                               "': " + re.error());
      }
      for (uint64_t r = 0; r < rows.num_rows(); ++r) {
        if (col->IsNull(r)) continue;
        std::string_view v = col->StringAt(r);
        if (!RE2::PartialMatch(v, re)) {
          return Violation(label, key, r,
                           "@check violation on " + what + ": value '" + std::string(v) +
                               "' does not match pattern '" + c.pattern + "'");
        }
      }
    }
  }
  return validate_internal::CheckDerivedIds(type, rows, label);
}

}  // namespace omnigraph::engine

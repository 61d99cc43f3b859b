// The JSON forms of result cells and rows (executor.h CellJson, RowsJson): what query output
// shows for each value. Date and DateTime text comes from schema/temporal.h, shared with
// literals, parameters and the NDJSON format.
#include <cmath>

#include "query/exec/executor.h"
#include "schema/temporal.h"

namespace omnigraph::query {

using schema::Value;

namespace {

constexpr int64_t kJsSafeMax = 9007199254740991;  // 2^53 - 1

OrderedJson ValueJson(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::kNull: return nullptr;
    case Value::Tag::kBool: return v.bool_value();
    case Value::Tag::kInt: {
      int64_t i = v.int_value();
      if (i > kJsSafeMax || i < -kJsSafeMax) return std::to_string(i);
      return i;
    }
    case Value::Tag::kUInt: {
      uint64_t u = v.uint_value();
      if (u > static_cast<uint64_t>(kJsSafeMax)) return std::to_string(u);
      return u;
    }
    case Value::Tag::kFloat: {
      double d = v.float_value();
      if (!std::isfinite(d)) return nullptr;
      return d;
    }
    case Value::Tag::kString: return v.string_value();
    case Value::Tag::kDate: return schema::FormatDate(v.date_days());
    case Value::Tag::kDateTime: return schema::FormatDateTime(v.datetime_ms());
    case Value::Tag::kList: {
      OrderedJson arr = OrderedJson::array();
      for (const Value& item : v.list_items()) arr.push_back(ValueJson(item));
      return arr;
    }
  }
  return nullptr;
}

}  // namespace

bool InBareEntity(const schema::PropertyDef& p) {
  return p.type.scalar != schema::ScalarKind::kVector && p.type.scalar != schema::ScalarKind::kBlob;
}

OrderedJson CellJson(const ResultColumn& column, const Value& value) {
  if (column.type.kind == ExprType::Kind::kEntity && value.tag() == Value::Tag::kList &&
      column.type.entity != nullptr) {
    const std::vector<Value>& items = value.list_items();
    OrderedJson obj = OrderedJson::object();
    const std::vector<schema::PropertyDef>& props = column.type.entity->properties;
    // The id is `id`, unless a property holds that name: then it is `@id`, the meta-field's name.
    const bool id_is_property = column.type.entity->FindProperty("id") != nullptr;
    obj[id_is_property ? "@id" : "id"] = ValueJson(items.at(0));
    for (size_t i = 0; i < props.size() && i + 1 < items.size(); ++i) {
      if (InBareEntity(props[i])) obj[props[i].name] = ValueJson(items[i + 1]);
    }
    return obj;
  }
  return ValueJson(value);
}

OrderedJson RowsJson(const QueryResult& result) {
  OrderedJson rows = OrderedJson::array();
  for (const std::vector<Value>& row : result.rows) {
    OrderedJson obj = OrderedJson::object();
    for (size_t c = 0; c < result.columns.size(); ++c) {
      obj[result.columns[c].name] = CellJson(result.columns[c], row[c]);
    }
    rows.push_back(std::move(obj));
  }
  return rows;
}

}  // namespace omnigraph::query

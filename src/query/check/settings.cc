#include "query/check/settings.h"

#include <limits>

namespace omnigraph::query {
namespace {

constexpr size_t kTraversalWorkLimit = 5;
constexpr size_t kStageWriteConcurrency = 4;

bool Applies(size_t index) {
  return index == kTraversalWorkLimit || index == kStageWriteConcurrency;
}

std::string ValueText(const schema::Value& v) {
  switch (v.tag()) {
    case schema::Value::Tag::kString: return v.string_value();
    case schema::Value::Tag::kInt: return std::to_string(v.int_value());
    case schema::Value::Tag::kUInt: return std::to_string(v.uint_value());
    case schema::Value::Tag::kBool: return v.bool_value() ? "true" : "false";
    case schema::Value::Tag::kFloat: return std::to_string(v.float_value());
    default: return "?";
  }
}

Status Bad(const Span& span, const char* code, std::string message, std::string fix = {}) {
  return DiagnosticError(
      Diagnostic{Severity::kError, code, std::move(message), span, std::move(fix)});
}

// A positive integer value of `setting` no larger than `max`.
Result<uint64_t> PositiveInteger(const Setting& s, uint64_t max) {
  const schema::Value& v = s.value->value;
  const bool integer = v.tag() == schema::Value::Tag::kInt || v.tag() == schema::Value::Tag::kUInt;
  const uint64_t n = v.tag() == schema::Value::Tag::kInt
                         ? static_cast<uint64_t>(std::max<int64_t>(v.int_value(), 0))
                     : integer ? v.uint_value()
                               : 0;
  if (!integer || n == 0 || n > max) {
    return Bad(s.value->span, kBadSettingValueCode,
               "setting `" + s.name.text + "` takes an integer from 1 to " + std::to_string(max) +
                   ", got " + ValueText(v));
  }
  return n;
}

Status ApplyOne(const Setting& s, size_t index, QuerySettings& out) {
  if (s.reset) {
    out.given[index].reset();
    if (index == kTraversalWorkLimit) out.traversal_work_limit.reset();
    if (index == kStageWriteConcurrency)
      out.stage_write_concurrency = kDefaultStageWriteConcurrency;
    return Status::Ok();
  }
  if (index == kTraversalWorkLimit) {
    OMNIGRAPH_ASSIGN_OR_RETURN(
        out.traversal_work_limit,
        PositiveInteger(s, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
  } else if (index == kStageWriteConcurrency) {
    OMNIGRAPH_ASSIGN_OR_RETURN(uint64_t n, PositiveInteger(s, kMaxStageWriteConcurrency));
    out.stage_write_concurrency = static_cast<uint32_t>(n);
  } else {
    out.warnings.push_back(
        Diagnostic{Severity::kWarning, kIgnoredSettingCode,
                   "setting `" + s.name.text +
                       "` tunes the reference engine's internals; accepted and ignored",
                   s.span, "remove the header; this engine has no such knob"});
  }
  out.given[index] = ValueText(s.value->value);
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& SettingNames() {
  static const std::vector<std::string> kNames = {"engine",
                                                  "rrf_plan",
                                                  "merge_lineage",
                                                  "ann_nprobes",
                                                  "stage_write_concurrency",
                                                  "traversal_work_limit",
                                                  "history_release_bytes"};
  return kNames;
}

Result<QuerySettings> ResolveSettings(const std::vector<Setting>& headers) {
  QuerySettings out;
  const std::vector<std::string>& names = SettingNames();
  out.given.resize(names.size());
  for (const Setting& s : headers) {
    size_t index = names.size();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == s.name.text) index = i;
    }
    if (index == names.size()) {
      std::string all;
      for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
      return Bad(s.name.span, kUnknownSettingCode, "unknown setting `" + s.name.text + "`",
                 "the settings are " + all);
    }
    OMNIGRAPH_RETURN_IF_ERROR(ApplyOne(s, index, out));
  }
  return out;
}

QueryResult ShowSettings(const QuerySettings& settings) {
  QueryResult result;
  auto column = [&](const char* name, schema::ScalarKind kind, bool nullable) {
    ResultColumn c;
    c.name = name;
    c.type = ExprType::Scalar(kind, nullable);
    c.nullable = nullable;
    result.columns.push_back(std::move(c));
  };
  column("name", schema::ScalarKind::kString, false);
  column("value", schema::ScalarKind::kString, true);
  column("applied", schema::ScalarKind::kBool, false);
  const std::vector<std::string>& names = SettingNames();
  for (size_t i = 0; i < names.size(); ++i) {
    schema::Value value = schema::Value::Null();
    if (i == kTraversalWorkLimit) {
      value = schema::Value::String(
          std::to_string(settings.traversal_work_limit.value_or(kDefaultTraversalWorkLimit)));
    } else if (i == kStageWriteConcurrency) {
      value = schema::Value::String(std::to_string(settings.stage_write_concurrency));
    } else if (i < settings.given.size() && settings.given[i]) {
      value = schema::Value::String(*settings.given[i]);
    }
    result.rows.push_back(
        {schema::Value::String(names[i]), std::move(value), schema::Value::Bool(Applies(i))});
  }
  return result;
}

}  // namespace omnigraph::query

// The settings of a `.gq` file's headers (`set name = value;`, `reset name;`) and the rows of
// `show all;` (docs/design/query-language.md "Settings").
//
// Two settings apply here: `traversal_work_limit` (the bound on a read's traversal work, passed
// to the executor) and `stage_write_concurrency` (how many table writes a mutation may stage at
// once; validated and recorded — this engine stages one table at a time, which every value
// allows). The others the reference accepts tune its own internals (`engine`, `rrf_plan`,
// `merge_lineage`, `ann_nprobes`, `history_release_bytes`): they are accepted and ignored, each
// with a warning. Pure values and functions; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "query/exec/executor.h"
#include "query/parse/ast.h"
#include "query/parse/diagnostic.h"

namespace omnigraph::query {

// The default and the largest `stage_write_concurrency`.
inline constexpr uint32_t kDefaultStageWriteConcurrency = 8;
inline constexpr uint32_t kMaxStageWriteConcurrency = 256;

// Diagnostic codes of the headers: an unknown setting, a value out of range or of the wrong
// kind, and the warning of a setting that is accepted and ignored.
inline constexpr const char* kUnknownSettingCode = "Q001";
inline constexpr const char* kBadSettingValueCode = "Q002";
inline constexpr const char* kIgnoredSettingCode = "Q003";

struct QuerySettings {
  // The `traversal_work_limit` a header sets; unset, the run's own bound applies (the caller's
  // RunOptions, by default kDefaultTraversalWorkLimit).
  std::optional<uint64_t> traversal_work_limit;
  uint32_t stage_write_concurrency = kDefaultStageWriteConcurrency;
  // The value each setting was given, by its index in SettingNames() (unset: the default).
  std::vector<std::optional<std::string>> given;
  // One per ignored setting a header sets (Severity::kWarning, kIgnoredSettingCode).
  std::vector<Diagnostic> warnings;
};

// Every setting name a header may use, in `show all` order.
const std::vector<std::string>& SettingNames();

// Applies `headers` in order (a later one overrides an earlier; `reset` restores the default).
// InvalidArgument with the rendered diagnostic ("1:5: Q001: ...") for an unknown setting or a bad
// value.
Result<QuerySettings> ResolveSettings(const std::vector<Setting>& headers);

// The rows of `show all;`: one per setting, columns `name` (String), `value` (String: the value
// in effect; null for an ignored setting never set) and `applied` (Bool: false for the
// reference's internal settings).
QueryResult ShowSettings(const QuerySettings& settings);

}  // namespace omnigraph::query

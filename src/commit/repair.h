// Repair: finds every derived-state defect of the record streams and, when confirmed, rewrites
// hints and checkpoints — never a record (docs/design/retention.md "Repair").
//
// For every stream life it walks the records from the base checkpoint, folding them, and
// reports: a record missing below one that proves it was published (a gap: a later record, a
// hint or a checkpoint above it; D21), a hint behind the latest record (or missing), missing or
// torn checkpoints, checkpoints that differ from the fold of the records, records whose parent is
// not their predecessor, records that fail to parse or sit under the wrong name, metadata marked
// retired without a retire record and the reverse, and — through the caller's callbacks, since
// tables are not this layer's — pins whose manifest is missing and staging that is provably dead.
// Thread-safe (no shared state).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "commit/retention.h"

namespace omnigraph::commit {

enum class DefectKind {
  kHintMissing,
  kHintBehind,
  kCheckpointMissing,
  kCheckpointTorn,
  kCheckpointDiffers,
  kBaseCheckpointMissing,
  kRecordWrongParent,
  kRecordMissing,
  kRecordUnparsable,
  kRetiredWithoutRetireRecord,
  kRetireRecordWithoutRetiredMetadata,
  kPinManifestMissing,
  kStaleStaging,
};

std::string_view DefectKindName(DefectKind kind);

struct Defect {
  DefectKind kind;
  std::string stream;
  std::string object;
  uint64_t seq = 0;
  std::string detail;
  // What an operator can do about a defect repair cannot fix (empty when repair fixes it).
  std::string advice;
  // Hints and checkpoints are rewritten by a confirmed repair; nothing else is.
  bool fixable = false;
  bool fixed = false;
  Json ToJson() const;
};

struct StagedVersion {
  PinRef version;
  std::string staged_against_stream;
  uint64_t staged_against_seq = 0;
  std::string object;  // The manifest's name, for the report.
};

struct RepairOptions {
  bool confirm = false;
  StreamOptions stream;
  // Whether the manifest a pin names exists (the engine asks the table layer). Optional.
  std::function<Result<bool>(const TablePin&)> pin_exists;
  // Unpublished staged versions to judge (D9). Optional.
  std::vector<StagedVersion> staged;
};

struct RepairReport {
  std::vector<Defect> defects;
  Json ToJson() const;
};

Result<RepairReport> Repair(const storage::Runtime& runtime, const RepairOptions& options);

}  // namespace omnigraph::commit

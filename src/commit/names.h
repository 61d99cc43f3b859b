// Object names of the commit protocol (docs/format/commit-documents.md) and commit ids (D4 in
// docs/design/overview.md).
//
//   _omnigraph.json                                   storage stamp
//   _graph/streams/{key}.json                         stream metadata
//   _graph/names/{sha256 hex of branch}/{gen:020}.json   branch name -> stream key
//   _graph/{key}/{u64::MAX - seq:020}.commit          record (newest sorts first)
//   _graph/{key}/checkpoints/{seq:020}.json           checkpoint
//   _graph/{key}/latest.json                          hint
//
// A commit id is `{key}.{seq}.{nonce}` with a 10-character Crockford nonce, so looking a commit
// up by id is one read of one known object. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/random.h"
#include "base/status.h"

namespace omnigraph::commit {

inline constexpr std::string_view kMainKey = "main";
inline constexpr std::string_view kStampName = "_omnigraph.json";
inline constexpr uint64_t kDefaultCheckpointInterval = 50;
inline constexpr size_t kCommitNonceLength = 10;
inline constexpr size_t kBranchNameBytesMax = 255;

std::string RecordName(std::string_view key, uint64_t seq);
std::string RecordPrefix(std::string_view key);
std::string CheckpointName(std::string_view key, uint64_t seq);
std::string CheckpointPrefix(std::string_view key);
std::string HintName(std::string_view key);
std::string StreamMetadataName(std::string_view key);
inline constexpr std::string_view kStreamsPrefix = "_graph/streams/";
// The folder of one branch name's generations: `_graph/names/{sha256 hex}/`.
std::string NameGenerationPrefix(std::string_view branch);
std::string NameGenerationName(std::string_view branch, uint64_t gen);
std::string SchemaArchiveName(std::string_view content_hash_hex);

// Parses `{u64::MAX - seq:020}.commit` (the last segment of a record name) back to seq.
Result<uint64_t> SeqFromRecordFile(std::string_view file);
// Parses `{gen:020}.json`.
Result<uint64_t> GenerationFromFile(std::string_view file);

// The checkpoint boundary at or below seq.
inline uint64_t BoundaryAtOrBelow(uint64_t seq, uint64_t interval) { return seq - seq % interval; }

struct CommitId {
  std::string key;
  uint64_t seq = 0;
  std::string nonce;

  std::string ToString() const;
  // InvalidArgument unless `text` is `{key}.{seq}.{10 Crockford characters}` with a valid key.
  static Result<CommitId> Parse(std::string_view text);
  static CommitId Mint(std::string_view key, uint64_t seq, Random& random);
};

// A stream key is `main` or a 26-character ULID.
Status ValidateStreamKey(std::string_view key);
// Branch names (docs/format/commit-documents.md §6.2): valid UTF-8, 1-255 bytes, no control
// characters, no leading or trailing space, not the name OmniGraph reserves. `main` is valid
// here; callers that create branches refuse it themselves.
Status ValidateBranchName(std::string_view name);

// The branch name OmniGraph reserves for its schema-apply lock; ValidateBranchName refuses it.
inline constexpr std::string_view kReservedBranchName = "__schema_apply_lock__";
// The actor recorded on records and stream metadata: valid UTF-8 (InvalidArgument naming the
// first bad byte otherwise). Every function that writes an actor checks it before writing.
Status ValidateActor(const std::optional<std::string>& actor);

}  // namespace omnigraph::commit

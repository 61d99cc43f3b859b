// Branches: a branch is a stream of records plus one metadata object, named through `names/`
// (D1, D2, D12, D13 in docs/design/overview.md; docs/design/branches.md).
//
// Create (D13) writes at most three objects, each by conditional create: the fork checkpoint
// (unreferenced until named), the stream metadata, and the next name generation — whose creation
// is the fence between racing creators of one name. It reads nothing of the parent beyond the
// fold at the fork point. Delete (D12) publishes a terminal retire record at latest + 1 through
// the same door every writer uses, then marks the metadata retired (best effort). Names resolve
// only through `names/`; `main` has no entry and can neither be created nor deleted.
// Thread-safe (no shared state); safe across processes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "commit/documents.h"
#include "commit/stream.h"

namespace omnigraph::commit {

// Retention records the seq below which a stream's table versions may have been reclaimed here;
// forking from an older commit is refused (D2). `_graph/{key}/horizon.json`.
std::string HorizonName(std::string_view key);
struct Horizon {
  uint64_t reclaimed_below_seq = 0;
  Json extra = Json::object();
};
std::string EncodeHorizon(const Horizon& h);
Result<Horizon> DecodeHorizon(std::string_view bytes, std::string_view object);
// The seq below which cleanup may have reclaimed the table versions of stream `key`'s commits:
// its horizon's reclaimed_below_seq, or 0 when no cleanup wrote one (nothing reclaimed).
// UINT64_MAX for a stream cleanup retains nothing of. Corruption for an unreadable horizon.
Result<uint64_t> ReclaimedBelowSeq(const storage::Runtime& runtime, std::string_view key);

struct ResolvedBranch {
  StreamMetadata metadata;
  // The metadata object's etag when it was read (for marking it retired).
  std::string metadata_etag;
  // The generation that named it (0 for main).
  uint64_t generation = 0;
  // With `with_hint`: what ReadHint answered for the stream, read beside the metadata (unset
  // when that read failed; Stream::FromMetadata takes it for the first cold read).
  std::optional<std::optional<Hint>> hint;
};

// Resolves a branch name to its live stream through `names/` only. BranchNotFound when the name
// has no live stream; InvalidArgument for a malformed name. `with_hint` also reads the stream's
// hint, in the same request round as its metadata.
Result<ResolvedBranch> ResolveBranch(const storage::Runtime& runtime, std::string_view name,
                                     bool with_hint = false);

struct ForkPoint {
  // The parent's fold at the fork seq (ReadHead or ReadAt of the parent's handle).
  GraphState state;
  std::string parent_branch;
  // False when forking from a past commit: retention's horizon of the parent is checked then
  // (one read); a head is never reclaimed.
  bool from_head = true;
};

// Creates branch `name` from `fork`. BranchExists (kAlreadyExists) when the name is live or a
// concurrent creator won; VersionsReclaimed when retention may have removed the fork point's
// table versions; InvalidArgument for a bad name or `main`.
Result<StreamMetadata> CreateBranch(const storage::Runtime& runtime, std::string_view name,
                                    const ForkPoint& fork, std::optional<std::string> creator,
                                    const StreamOptions& options = {});

// Deletes branch `name`: the retire record, then the metadata marked retired. BranchNotFound when
// it does not exist (or was deleted already); InvalidArgument for `main`.
Status DeleteBranch(const storage::Runtime& runtime, std::string_view name,
                    std::optional<std::string> actor, const StreamOptions& options = {});

struct BranchInfo {
  std::string branch;
  std::string key;
  uint64_t head_seq = 0;
  std::string head_commit_id;
  std::optional<std::string> parent_stream;
  std::optional<uint64_t> fork_seq;
  std::optional<std::string> fork_commit_id;
};

// Every live branch (main first, then by name) with its head.
Result<std::vector<BranchInfo>> ListBranches(const storage::Runtime& runtime,
                                             const StreamOptions& options = {});

}  // namespace omnigraph::commit

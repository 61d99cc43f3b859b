// The JSON documents of the commit protocol (docs/format/commit-documents.md): record (commit and
// retire), checkpoint, hint, stream metadata, name generation and storage stamp.
//
// Every document carries `"format": 1`; a decoder refuses a higher format with kFormatTooNew
// before interpreting anything else. Members a decoder does not know are kept in `extra` and
// written back by the encoder, so a rewrite (repair, backfill, marking a stream retired) never
// drops what a newer writer added. Malformed documents are kCorruption naming the object.
// Pure value types and functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "base/table_pin.h"
#include "storage/object_store.h"

namespace omnigraph::commit {

inline constexpr uint64_t kDocumentFormat = 1;
inline constexpr uint64_t kStorageStamp = 15;
// Size limits, checked from the store's reported size before the body is used (§4).
inline constexpr uint64_t kRecordBytesMax = 1 << 20;
inline constexpr uint64_t kCheckpointBytesMax = 64 << 20;
inline constexpr uint64_t kDocumentBytesMax = 1 << 20;

struct SchemaRef {
  std::string identity_domain;
  std::string ir_hash;
  uint64_t identity_version = 0;
  std::string content_hash;
  Json extra = Json::object();
  bool operator==(const SchemaRef&) const = default;
};

struct Registration {
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;
  std::string table_key;
  std::string kind;  // "node" or "edge"
  Json extra = Json::object();
  TableId identity() const { return {stable_table_id, incarnation}; }
  bool operator==(const Registration&) const = default;
};

struct Tombstone {
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;
  std::string table_key;
  Json extra = Json::object();
  TableId identity() const { return {stable_table_id, incarnation}; }
  bool operator==(const Tombstone&) const = default;
};

struct Rename {
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;
  std::string from;
  std::string to;
  Json extra = Json::object();
  TableId identity() const { return {stable_table_id, incarnation}; }
  bool operator==(const Rename&) const = default;
};

struct Lineage {
  std::string kind = "merge";
  std::string source_stream;
  uint64_t source_seq = 0;
  std::string merged_parent_commit_id;
  Json extra = Json::object();
  bool operator==(const Lineage&) const = default;
};

// What one commit did to one table: the ids it inserted, updated (rewrote; see
// docs/format/commit-documents.md "Change set") and deleted, each ascending. The counts are always
// set; the id lists are empty in a record whose change set spilled to a delta object.
struct TableChangeSet {
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;
  std::string table_key;
  uint64_t inserted_count = 0;
  uint64_t updated_count = 0;
  uint64_t deleted_count = 0;
  std::vector<std::string> inserted;
  std::vector<std::string> updated;
  std::vector<std::string> deleted;
  Json extra = Json::object();
  TableId identity() const { return {stable_table_id, incarnation}; }
  bool operator==(const TableChangeSet&) const = default;
};

// The immutable object holding a change set's id lists when they are too large to inline.
struct ChangeSetDelta {
  std::string name;    // `_graph/{key}/changes/{sha256}.json`
  std::string sha256;  // Lower-case hex SHA-256 of the object's bytes.
  uint64_t size_bytes = 0;
  bool operator==(const ChangeSetDelta&) const = default;
};

// A record's change set: per touched table (ascending table identity), what the commit changed.
// `schema_boundary` marks a commit that changed the schema: its entity changes are not listed.
struct ChangeSet {
  bool schema_boundary = false;
  std::vector<TableChangeSet> tables;
  std::optional<ChangeSetDelta> delta;
  Json extra = Json::object();
  bool operator==(const ChangeSet&) const = default;
};

enum class RecordKind { kCommit, kRetire };

// One write of a group commit's batch (docs/format/commit-documents.md "members"): who wrote it,
// its idempotency key member (null without one) and what it did (its own counts, as its caller
// reported them).
struct BatchMember {
  std::optional<std::string> actor;
  Json idempotency_key = nullptr;
  Json counts = Json::object();
  bool operator==(const BatchMember&) const = default;
};

struct Record {
  RecordKind kind = RecordKind::kCommit;
  uint64_t seq = 0;
  std::string commit_id;
  std::optional<std::string> parent_commit_id;
  uint64_t generation = 0;
  std::string stream;
  std::optional<std::string> branch;
  std::optional<std::string> actor;
  int64_t created_at = 0;  // Unix µs.
  SchemaRef schema;
  std::vector<TablePin> pins;
  std::vector<Registration> registrations;
  std::vector<Tombstone> tombstones;
  std::vector<Rename> renames;
  std::optional<Lineage> lineage;
  Json idempotency_key = nullptr;
  // A group commit's writes, in the order they were validated; empty for a single write (the
  // member is then absent from the bytes).
  std::vector<BatchMember> members;
  // What the commit changed (absent in records of writers that do not know it: readers fall back
  // to the exact table diff), and a short line saying what it did, for people.
  std::optional<ChangeSet> change_set;
  std::optional<std::string> summary;
  Json extra = Json::object();
  bool operator==(const Record&) const = default;
};

struct CheckpointTable {
  Registration registration;
  TablePin pin;
  uint64_t pin_seq = 0;
  Json extra = Json::object();
  bool operator==(const CheckpointTable&) const = default;
};

struct Checkpoint {
  std::string stream;
  uint64_t seq = 0;
  std::string head_commit_id;
  uint64_t head_generation = 0;
  SchemaRef schema;
  std::vector<CheckpointTable> tables;
  Json extra = Json::object();
  bool operator==(const Checkpoint&) const = default;
};

struct Hint {
  uint64_t seq = 0;
  // The schema record `seq` accepted (docs/format/commit-documents.md "Hint"): a reader asks for
  // it beside the records up to `seq` instead of one round after them. Advisory like the seq:
  // the record read afterwards is what counts. Unset in hints written before it existed, and
  // ignored when malformed.
  std::optional<SchemaRef> schema;
  Json extra = Json::object();
};

struct Retired {
  uint64_t at_seq = 0;
  int64_t at = 0;  // Unix µs.
  bool operator==(const Retired&) const = default;
};

struct StreamMetadata {
  std::string key;
  std::string branch;
  std::string native_name;
  std::optional<std::string> parent_stream;
  std::optional<uint64_t> fork_seq;
  std::optional<std::string> fork_commit_id;
  std::optional<std::string> creator;
  int64_t created_at = 0;
  std::optional<Retired> retired;
  Json extra = Json::object();
  // The seq a read of this stream starts from: the fork seq, or 0 on main.
  uint64_t base_seq() const { return fork_seq.value_or(0); }
  bool operator==(const StreamMetadata&) const = default;
};

struct NameGeneration {
  std::string branch;
  std::string key;
  uint64_t gen = 0;
  Json extra = Json::object();
};

struct StorageStamp {
  std::string kind = "omnigraph";
  uint64_t storage_stamp = kStorageStamp;
  std::string graph_id;
  uint64_t checkpoint_interval = 50;
  int64_t created_at = 0;
  Json extra = Json::object();
};

// Fails (InvalidArgument) only if a string member is not valid UTF-8.
Result<std::string> EncodeRecord(const Record& r);
Result<std::string> EncodeCheckpoint(const Checkpoint& c);
std::string EncodeHint(const Hint& h);
std::string EncodeStreamMetadata(const StreamMetadata& m);
std::string EncodeNameGeneration(const NameGeneration& g);
std::string EncodeStorageStamp(const StorageStamp& s);
// The record member `change_set` on its own, and the delta object: its bytes list every table's
// ids (the counts are left out).
Json ChangeSetJson(const ChangeSet& c);
std::string EncodeChangeSetDelta(const std::vector<TableChangeSet>& tables);

// Decoders: kCorruption (naming `object`) for malformed bytes, kFormatTooNew for a newer format.
Result<Record> DecodeRecord(std::string_view bytes, std::string_view object);
Result<Checkpoint> DecodeCheckpoint(std::string_view bytes, std::string_view object);
Result<Hint> DecodeHint(std::string_view bytes, std::string_view object);
Result<StreamMetadata> DecodeStreamMetadata(std::string_view bytes, std::string_view object);
Result<NameGeneration> DecodeNameGeneration(std::string_view bytes, std::string_view object);
Result<StorageStamp> DecodeStorageStamp(std::string_view bytes, std::string_view object);
// The id lists of a delta object; Corruption when malformed or when a list is not ascending.
Result<std::vector<TableChangeSet>> DecodeChangeSetDelta(std::string_view bytes,
                                                         std::string_view object);

// Reads a document of at most `limit_bytes` with one ranged GET: a larger object is refused
// (kCorruption) from the store's reported size without using its body. nullopt when absent.
struct BoundedRead {
  std::string data;
  storage::ObjectMeta meta;
};
Result<std::optional<BoundedRead>> ReadBounded(storage::ObjectStore& store, std::string_view name,
                                               uint64_t limit_bytes);

}  // namespace omnigraph::commit

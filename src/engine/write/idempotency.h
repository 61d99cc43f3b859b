// Idempotency keys: a retried write with the same key and the same request returns the first
// write's outcome and never commits twice, in any process (docs/design/idempotency.md).
//
// A key is fenced to one seq of the branch's stream by a small key object,
// `_graph/{stream}/keys/{sha256(key)}.json` = {key, request_sha256, seq}: a record that names the
// key may be created only at the seq the key object names, and the key object's seq moves (a
// compare-and-swap on its etag) only after the record at its current seq is seen to exist
// without naming the key. Every record creation is a conditional create of one seq, so at most
// one record ever names a key. The record carries the key, the request's digest and the write's
// outcome (its counts), which is what a retry answers with.
//
// A KeyFence is one write's view of its key; not thread-safe (one writer uses it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/json.h"
#include "base/status.h"
#include "commit/documents.h"
#include "storage/object_store.h"

namespace omnigraph::engine {

inline constexpr size_t kIdempotencyKeyBytesMax = 255;
// Compare-and-swap rounds on one key object before giving up with RetriesExhausted.
inline constexpr int kKeyFenceRoundsMax = 16;
// A key object expires with the record it names: cleanup removes it once that record is below its
// stream's retention horizon (docs/design/idempotency.md "Retention"); a retry after that is a
// new write.

// One write's key: the caller's key, the digest of the request it names (the same key with
// another digest is IdempotencyConflict), and what the write reports, kept in the record so that
// a retry reports it too.
struct Idempotency {
  std::string key;
  std::string request_sha256;
  Json outcome = Json::object();
};

// InvalidArgument unless `key` is 1..kIdempotencyKeyBytesMax bytes of printable ASCII.
Status ValidateIdempotencyKey(std::string_view key);
// The key object's name under stream `stream_key`.
std::string IdempotencyKeyName(std::string_view stream_key, std::string_view key);
// The record's `idempotency_key` member for a write with `idempotency`.
Json IdempotencyMember(const Idempotency& idempotency);
// The member of `record` that names `key` ({key, request_sha256, outcome}), or null.
const Json* RecordKeyMember(const commit::Record& record, std::string_view key);

// What a write does next at the seq it is about to publish.
enum class FenceVerdict {
  kPublish,  // The key object names this seq: create the record there.
  kReplay,   // A record naming the key exists (KeyFence::replayed()).
  kStale,    // The key names a later seq: the captured head is behind; refresh it.
};

class KeyFence {
 public:
  KeyFence(storage::ObjectStore& store, std::string stream_key, Idempotency idempotency);

  // The record that already answers this key, if any: one GET of the key object (absent: no
  // more), then one read of the record at the seq it names. IdempotencyConflict when the key
  // object names another request; storage errors as the store reports them.
  Result<std::optional<commit::Record>> Published();
  // Fences the key to `seq` before the record is created there: on the first call one
  // conditional create of the key object; when it exists, its seq decides (a record there that
  // names the key is replayed; one that does not lets the key move to `seq`).
  // IdempotencyConflict as Published; RetriesExhausted past kKeyFenceRoundsMax rounds.
  Result<FenceVerdict> Claim(uint64_t seq);
  // The record found by Claim's kReplay.
  const commit::Record& replayed() const { return *replayed_; }
  const Idempotency& idempotency() const { return idempotency_; }

 private:
  struct KeyObject {
    std::string request_sha256;
    uint64_t seq = 0;
    std::string etag;
  };
  std::string Encode(uint64_t seq) const;
  // nullopt when absent. IdempotencyConflict when it names another request.
  Result<std::optional<KeyObject>> Read();
  // The record at `seq` of the stream when it exists (nullopt when absent).
  Result<std::optional<commit::Record>> RecordAt(uint64_t seq);

  storage::ObjectStore& store_;
  std::string stream_key_;
  Idempotency idempotency_;
  std::string name_;
  bool created_ = false;
  std::optional<commit::Record> replayed_;
};

}  // namespace omnigraph::engine

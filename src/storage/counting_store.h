// CountingStore: an ObjectStore wrapper that counts every call per operation, the bytes moved and
// the dependent request rounds.
//
// Tests take a Snapshot() before and after one call and assert the exact Diff (STYLE.md: object
// operation counts are exact and asserted). Every call is counted, failed ones included.
//
// Rounds (docs/design/storage.md "Wrappers"): a call belongs to round 1 + the highest round among
// the calls that had finished when it started, so calls issued together share a round and a call
// that could have waited for another's answer comes after it. `rounds` is the highest round
// finished: what a caller on a store with a fixed delay per request waits for, in delays. For
// calls made one after another it is exact; for calls issued together it is an upper bound (a
// thread that starts late may see a sibling finished).
// Tracing: with OMNIGRAPH_STORE_TRACE set to 1 in the environment when the store is made, every
// call is also written to stderr as it finishes, one line "store: round=R op name [range]", so an
// operator can see which reads waited for which (docs/design/storage.md "Wrappers").
// Thread-safe (atomic counters; trace lines are written whole).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "storage/object_store.h"

namespace omnigraph::storage {

struct OpCounts {
  uint64_t gets = 0;
  uint64_t heads = 0;
  uint64_t puts = 0;
  uint64_t put_if_absent = 0;
  uint64_t put_if_match = 0;
  uint64_t lists = 0;
  uint64_t deletes = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  // Of `gets`, those made through GetShared (a mapped or shared read; counted in `gets` too, since
  // to the store it is a GET of the object or range, and in bytes_read by the bytes returned).
  uint64_t shared_gets = 0;
  // The highest round of a finished call (see above). In a Diff of two snapshots, the rounds of
  // the calls made between them when those began after the earlier ones finished.
  uint64_t rounds = 0;

  // Reads of any kind (get, head, list).
  uint64_t reads() const { return gets + heads + lists; }
  // Mutating calls of any kind.
  uint64_t writes() const { return puts + put_if_absent + put_if_match + deletes; }
  uint64_t total() const { return reads() + writes(); }

  OpCounts operator-(const OpCounts& earlier) const;
  bool operator==(const OpCounts&) const = default;
  // "gets=1 heads=0 …" for failure messages.
  std::string ToString() const;
};

class CountingStore final : public ObjectStore {
 public:
  explicit CountingStore(std::shared_ptr<ObjectStore> inner);

  OpCounts Snapshot() const;
  void Reset();

  Result<GetResult> Get(std::string_view name,
                        std::optional<ByteRange> range = std::nullopt) override;
  Result<SharedGetResult> GetShared(std::string_view name,
                                    std::optional<ByteRange> range = std::nullopt) override;
  Result<ObjectMeta> Head(std::string_view name) override;
  Status Put(std::string_view name, std::string_view data) override;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override;
  Result<std::string> PutIfMatch(std::string_view name, std::string_view data,
                                 std::string_view etag) override;
  Result<ListPage> List(const ListOptions& options) override;
  Status Delete(std::string_view name) override;
  std::string Describe() const override { return inner_->Describe(); }
  int64_t UnknownOutcomeWindowMicros() const override {
    return inner_->UnknownOutcomeWindowMicros();
  }
  bool Remote() const override { return inner_->Remote(); }

  ObjectStore& inner() { return *inner_; }

 private:
  // Makes `call` (one call of the inner store) in the round it belongs to.
  // `op` and `name` (and `range`) say what the call is, for the trace.
  template <typename Call>
  auto InRound(std::string_view op, std::string_view name, Call&& call,
               std::optional<ByteRange> range = std::nullopt) {
    const uint64_t round = rounds_.load(std::memory_order_acquire) + 1;
    auto result = call();
    Finish(round);
    if (trace_) Trace(round, op, name, range);
    return result;
  }
  // Records that a call of `round` has finished.
  void Finish(uint64_t round);
  // Writes one trace line to stderr.
  void Trace(uint64_t round, std::string_view op, std::string_view name,
             std::optional<ByteRange> range) const;

  std::shared_ptr<ObjectStore> inner_;
  const bool trace_;
  std::atomic<uint64_t> rounds_{0};
  std::atomic<uint64_t> gets_{0}, heads_{0}, puts_{0}, put_if_absent_{0}, put_if_match_{0},
      lists_{0}, deletes_{0}, bytes_read_{0}, bytes_written_{0}, shared_gets_{0};
};

}  // namespace omnigraph::storage

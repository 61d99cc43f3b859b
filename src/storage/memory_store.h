// MemoryStore: an ObjectStore held in process memory, for tests and the simulator.
//
// Thread-safe (one mutex) and deterministic: etags count writes ("m1", "m2", …) and
// last-modified comes from the Clock it is given, so with a ManualClock two runs that make the same
// calls see the same results.
#pragma once

#include <map>
#include <mutex>

#include "base/clock.h"
#include "storage/object_store.h"

namespace omnigraph::storage {

class MemoryStore final : public ObjectStore {
 public:
  // `clock` must outlive the store; null means the system clock.
  explicit MemoryStore(std::string label = "memory", Clock* clock = nullptr);

  Result<GetResult> Get(std::string_view name,
                        std::optional<ByteRange> range = std::nullopt) override;
  Result<ObjectMeta> Head(std::string_view name) override;
  Status Put(std::string_view name, std::string_view data) override;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override;
  Result<std::string> PutIfMatch(std::string_view name, std::string_view data,
                                 std::string_view etag) override;
  Result<ListPage> List(const ListOptions& options) override;
  Status Delete(std::string_view name) override;
  std::string Describe() const override { return "memory://" + label_; }

  // Number of objects held (tests).
  size_t size() const;

 private:
  struct Entry {
    std::string data;
    ObjectMeta meta;
  };
  void StoreLocked(std::string_view name, std::string_view data);

  const std::string label_;
  Clock* const clock_;
  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> objects_;
  uint64_t writes_ = 0;
};

// Shared helpers for backends that implement ranges and listing themselves.
Status ValidateListOptions(const ListOptions& options);
// Checks a range against an object of `size` bytes; returns the clamped [offset, end).
Result<std::pair<uint64_t, uint64_t>> ClampRange(std::string_view name, uint64_t size,
                                                 const ByteRange& range);

}  // namespace omnigraph::storage

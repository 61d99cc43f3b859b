// ObjectCache: a least-recently-used cache of decoded immutable objects, bounded by the bytes it
// charges, shared by every version a TableStore opens.
//
// Keys are "{kind}:{object name}" (plus "#{field id}" for one column of a fragment). Every object
// of a table is immutable and its name never reused, so an entry never goes stale and is never
// invalidated; it only ages out. Values are shared: an evicted value stays alive while a reader
// holds it. An entry charged more than the whole capacity is not kept (base/lru_cache.h).
// Thread-safe (one mutex).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "base/lru_cache.h"

namespace omnigraph::table {

class ObjectCache {
 public:
  explicit ObjectCache(uint64_t capacity_bytes) : cache_(capacity_bytes) {}
  ObjectCache(const ObjectCache&) = delete;
  ObjectCache& operator=(const ObjectCache&) = delete;

  // The value under `key`, or null; a hit makes the entry the most recently used. T must be the
  // type the value was put with.
  template <typename T>
  std::shared_ptr<const T> Get(const std::string& key) {
    return std::static_pointer_cast<const T>(GetErased(key));
  }
  // Inserts or replaces `key`, then evicts the least recently used entries until the charges
  // fit in the capacity.
  template <typename T>
  void Put(const std::string& key, std::shared_ptr<const T> value, uint64_t charge_bytes) {
    PutErased(key, std::static_pointer_cast<const void>(std::move(value)), charge_bytes);
  }

  // Drops `key` if present (an object replaced in place on the store).
  void Erase(const std::string& key);

  uint64_t capacity_bytes() const { return cache_.capacity(); }
  uint64_t charged_bytes() const;
  size_t entries() const;
  uint64_t hits() const;
  uint64_t misses() const;

 private:
  std::shared_ptr<const void> GetErased(const std::string& key);
  void PutErased(const std::string& key, std::shared_ptr<const void> value, uint64_t charge_bytes);

  mutable std::mutex mu_;
  LruCache<std::shared_ptr<const void>> cache_;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace omnigraph::table

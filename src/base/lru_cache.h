// LruCache: the least-recently-used bookkeeping every cache of the engine shares — the decoded
// objects of the table layer (table::ObjectCache), the query executor's images and adjacencies
// (query::ExecCache) and prepared queries (engine::PreparedQueries).
//
// String keys; each entry carries a charge (its bytes, or 1 in a cache bounded by a count of
// entries). After a Put, the least recently used entries are evicted until the total charge fits
// the capacity; an entry charged more than the whole capacity is not kept at all. Not
// thread-safe: each owner guards its cache with its own mutex, with which it also keeps its own
// statistics.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace omnigraph {

template <typename V>
class LruCache {
 public:
  explicit LruCache(uint64_t capacity) : capacity_(capacity) {}

  // The value under `key`, or null; a hit makes the entry the most recently used.
  V* Find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->value;
  }
  // Whether `key` is held, without touching its recency.
  bool Contains(const std::string& key) const { return index_.count(key) != 0; }

  // Inserts or replaces `key` as the most recently used entry, then evicts until the charges fit.
  // False when the entry alone exceeds the capacity (it is not kept; a previous value under
  // `key` is dropped).
  bool Put(const std::string& key, V value, uint64_t charge = 1) {
    Erase(key);
    if (charge > capacity_) return false;
    order_.push_front(Entry{key, std::move(value), charge});
    index_.emplace(key, order_.begin());
    charged_ += charge;
    while (charged_ > capacity_) {
      const Entry& victim = order_.back();
      charged_ -= victim.charge;
      index_.erase(victim.key);
      order_.pop_back();
    }
    return true;
  }

  // Drops `key` if held; whether it was.
  bool Erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    charged_ -= it->second->charge;
    order_.erase(it->second);
    index_.erase(it);
    return true;
  }

  size_t size() const { return index_.size(); }
  uint64_t charged() const { return charged_; }
  uint64_t capacity() const { return capacity_; }

 private:
  struct Entry {
    std::string key;
    V value;
    uint64_t charge;
  };
  const uint64_t capacity_;
  std::list<Entry> order_;  // Most recently used first.
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
  uint64_t charged_ = 0;
};

}  // namespace omnigraph

#include "table/object_cache.h"

namespace omnigraph::table {

std::shared_ptr<const void> ObjectCache::GetErased(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->value;
}

void ObjectCache::PutErased(const std::string& key, std::shared_ptr<const void> value,
                            uint64_t charge_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  EraseLocked(key);
  if (charge_bytes > capacity_bytes_) return;
  lru_.push_front(Entry{key, std::move(value), charge_bytes});
  index_.emplace(key, lru_.begin());
  charged_bytes_ += charge_bytes;
  while (charged_bytes_ > capacity_bytes_) {
    const Entry& victim = lru_.back();
    charged_bytes_ -= victim.charge_bytes;
    index_.erase(victim.key);
    lru_.pop_back();
  }
}

void ObjectCache::Erase(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  EraseLocked(key);
}

void ObjectCache::EraseLocked(const std::string& key) {
  if (auto it = index_.find(key); it != index_.end()) {
    charged_bytes_ -= it->second->charge_bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
}

uint64_t ObjectCache::charged_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return charged_bytes_;
}
size_t ObjectCache::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_.size();
}
uint64_t ObjectCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}
uint64_t ObjectCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

}  // namespace omnigraph::table

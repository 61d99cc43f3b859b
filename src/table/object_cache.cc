#include "table/object_cache.h"

namespace omnigraph::table {

std::shared_ptr<const void> ObjectCache::GetErased(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<const void>* value = cache_.Find(key);
  if (value == nullptr) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  return *value;
}

void ObjectCache::PutErased(const std::string& key, std::shared_ptr<const void> value,
                            uint64_t charge_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_.Put(key, std::move(value), charge_bytes);
}

void ObjectCache::Erase(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_.Erase(key);
}

uint64_t ObjectCache::charged_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.charged();
}
size_t ObjectCache::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.size();
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

// NamingStore: an ObjectStore wrapper (for tests) that names every object it is asked to GET, so
// that a cost test can say which objects a call read, not only how many. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "storage/object_store.h"

namespace omnigraph::storage {

class NamingStore final : public ObjectStore {
 public:
  explicit NamingStore(std::shared_ptr<ObjectStore> inner) : inner_(std::move(inner)) {}
  std::vector<std::string> TakeGets() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(gets_, {});
  }
  Result<GetResult> Get(std::string_view name, std::optional<ByteRange> range) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      gets_.emplace_back(name);
    }
    return inner_->Get(name, range);
  }
  Result<ObjectMeta> Head(std::string_view name) override { return inner_->Head(name); }
  Status Put(std::string_view name, std::string_view data) override {
    return inner_->Put(name, data);
  }
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    return inner_->PutIfAbsent(name, data);
  }
  Result<std::string> PutIfMatch(std::string_view name, std::string_view data,
                                 std::string_view etag) override {
    return inner_->PutIfMatch(name, data, etag);
  }
  Result<ListPage> List(const ListOptions& options) override { return inner_->List(options); }
  Status Delete(std::string_view name) override { return inner_->Delete(name); }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::shared_ptr<ObjectStore> inner_;
  std::mutex mu_;
  std::vector<std::string> gets_;
};

}  // namespace omnigraph::storage

// NamingStore: an ObjectStore wrapper (for tests) that names every object it is asked to GET, so
// that a cost test can say which objects a call read, not only how many. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "storage/forwarding_store.h"

namespace omnigraph::storage {

class NamingStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  std::vector<std::string> TakeGets() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(gets_, {});
  }
  Result<GetResult> Get(std::string_view name, std::optional<ByteRange> range) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      gets_.emplace_back(name);
    }
    return inner().Get(name, range);
  }
  Result<SharedGetResult> GetShared(std::string_view name,
                                    std::optional<ByteRange> range) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      gets_.emplace_back(name);
    }
    return inner().GetShared(name, range);
  }

 private:
  std::mutex mu_;
  std::vector<std::string> gets_;
};

}  // namespace omnigraph::storage

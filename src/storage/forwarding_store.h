// ForwardingStore: an ObjectStore that passes every call to an inner store. Wrappers that watch
// or interfere with a few calls (tests' recording, naming and blocking stores) derive from it and
// override only those. GetShared is not forwarded: the default reads through this wrapper's Get, so
// a wrapper that watches Get sees every read; one that wants the inner store's shared reads
// overrides GetShared too.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "storage/object_store.h"

namespace omnigraph::storage {

class ForwardingStore : public ObjectStore {
 public:
  explicit ForwardingStore(std::shared_ptr<ObjectStore> inner) : inner_(std::move(inner)) {}

  Result<GetResult> Get(std::string_view name, std::optional<ByteRange> range) override {
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
  int64_t UnknownOutcomeWindowMicros() const override {
    return inner_->UnknownOutcomeWindowMicros();
  }
  bool Remote() const override { return inner_->Remote(); }

 protected:
  ObjectStore& inner() const { return *inner_; }

 private:
  std::shared_ptr<ObjectStore> inner_;
};

}  // namespace omnigraph::storage

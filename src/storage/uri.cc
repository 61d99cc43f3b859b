#include "storage/uri.h"

#include <map>
#include <mutex>

#include "storage/azure/azure_store.h"
#include "storage/memory_store.h"
#include "storage/s3/s3_store.h"

namespace omnigraph::storage {

namespace {

struct NoopDeleter {
  void operator()(Clock*) const {}
};

Status BadUri(std::string_view uri, std::string_view why) {
  return InvalidArgument("invalid store URI '" + std::string(uri) + "': " + std::string(why));
}

Result<StoreUri> ParseBucketUri(std::string_view uri, std::string_view rest, Scheme scheme,
                                std::string_view bucket_word) {
  StoreUri out;
  out.scheme = scheme;
  size_t slash = rest.find('/');
  out.location = std::string(rest.substr(0, slash));
  if (out.location.empty()) return BadUri(uri, "the " + std::string(bucket_word) + " is empty");
  for (char c : out.location) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    if (!ok) {
      return BadUri(uri, std::string(bucket_word) +
                             " names use lower-case letters, digits, '-' "
                             "and '.'");
    }
  }
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash + 1);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    out.prefix = std::string(prefix);
    if (!out.prefix.empty()) {
      Status valid = ValidateObjectName(out.prefix);
      if (!valid.ok()) return BadUri(uri, "prefix: " + valid.message());
    }
  }
  return out;
}

}  // namespace

std::string StoreUri::ToString() const {
  switch (scheme) {
    case Scheme::kFile: return "file://" + location;
    case Scheme::kMemory: return "memory://" + location;
    case Scheme::kS3: return "s3://" + location + (prefix.empty() ? "" : "/" + prefix);
    case Scheme::kAzure: return "az://" + location + (prefix.empty() ? "" : "/" + prefix);
  }
  return location;
}

Result<StoreUri> ParseStoreUri(std::string_view uri) {
  if (uri.empty()) return BadUri(uri, "it is empty");
  for (unsigned char c : uri) {
    if (c < 0x20 || c == 0x7f) return BadUri(uri, "it contains a control character");
  }
  size_t sep = uri.find("://");
  if (sep == std::string_view::npos) {
    StoreUri out;
    out.scheme = Scheme::kFile;
    out.location = std::string(uri);
    return out;
  }
  std::string_view scheme = uri.substr(0, sep);
  std::string_view rest = uri.substr(sep + 3);
  if (scheme == "file") {
    if (rest.empty() || rest.front() != '/') {
      return BadUri(uri, "file:// needs an absolute path (file:///dir)");
    }
    StoreUri out;
    out.scheme = Scheme::kFile;
    out.location = std::string(rest);
    return out;
  }
  if (scheme == "memory") {
    if (rest.empty() || rest.find('/') != std::string_view::npos) {
      return BadUri(uri, "memory:// needs a name without '/'");
    }
    StoreUri out;
    out.scheme = Scheme::kMemory;
    out.location = std::string(rest);
    return out;
  }
  if (scheme == "s3") return ParseBucketUri(uri, rest, Scheme::kS3, "bucket");
  if (scheme == "az") return ParseBucketUri(uri, rest, Scheme::kAzure, "container");
  return BadUri(uri, "unknown scheme '" + std::string(scheme) +
                         "' (expected a path, file://, memory://, s3:// or az://)");
}

Result<std::shared_ptr<ObjectStore>> OpenStore(const StoreUri& uri, const OpenOptions& options) {
  switch (uri.scheme) {
    case Scheme::kFile: {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<LocalStore> store,
                                 LocalStore::Open(uri.location, options.local));
      return std::shared_ptr<ObjectStore>(std::move(store));
    }
    case Scheme::kMemory: {
      // Stores are shared by name for the life of the process, like a bucket.
      static std::mutex* mu = new std::mutex();
      static auto* stores = new std::map<std::string, std::shared_ptr<ObjectStore>>();
      std::lock_guard lock(*mu);
      auto& slot = (*stores)[uri.location];
      if (!slot) slot = std::make_shared<MemoryStore>(uri.location);
      return slot;
    }
    case Scheme::kS3: {
      OMNIGRAPH_ASSIGN_OR_RETURN(s3::S3Config config, s3::S3Config::FromEnvironment());
      OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<s3::S3Store> store,
                                 s3::S3Store::Open(std::move(config), uri.location, uri.prefix));
      return std::shared_ptr<ObjectStore>(std::move(store));
    }
    case Scheme::kAzure: {
      OMNIGRAPH_ASSIGN_OR_RETURN(azure::AzureConfig config, azure::AzureConfig::FromEnvironment());
      OMNIGRAPH_ASSIGN_OR_RETURN(
          std::unique_ptr<azure::AzureStore> store,
          azure::AzureStore::Open(std::move(config), uri.location, uri.prefix));
      return std::shared_ptr<ObjectStore>(std::move(store));
    }
  }
  return Internal("unhandled store scheme");
}

Result<std::shared_ptr<ObjectStore>> OpenStore(std::string_view uri, const OpenOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(StoreUri parsed, ParseStoreUri(uri));
  return OpenStore(parsed, options);
}

Clock& Runtime::SystemRuntimeClock() { return *SystemClock::Default(); }

Runtime Runtime::ForStore(std::shared_ptr<ObjectStore> store, size_t threads) {
  Runtime rt;
  rt.clock = std::shared_ptr<Clock>(SystemClock::Default(), NoopDeleter());
  rt.random = std::make_shared<Random>(Random::FromEntropy());
  rt.executor = std::make_shared<ThreadPool>(threads);
  // A pool starts its threads with its first task (decision 229). A remote store's first cold
  // read fans out to the pool at once and waits on the slowest of its reads, so its threads are
  // started now, by an empty task, rather than while that read's requests queue behind them.
  if (store != nullptr && store->Remote()) rt.executor->Submit([] {});
  rt.store = std::move(store);
  return rt;
}

Runtime Runtime::ForTest(std::shared_ptr<ObjectStore> store, uint64_t seed) {
  Runtime rt;
  rt.clock = std::make_shared<ManualClock>();
  rt.random = std::make_shared<Random>(seed);
  rt.executor = std::make_shared<InlineExecutor>();
  rt.store = std::move(store);
  return rt;
}

}  // namespace omnigraph::storage

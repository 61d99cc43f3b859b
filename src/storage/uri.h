// Store URIs and the Runtime.
//
// A graph is addressed by a URI: a plain path or `file:///abs/path` (local directory),
// `memory://name` (a process-wide in-memory store; every open of one name shares it),
// `s3://bucket/prefix` (the S3 backend, configured by the AWS_* environment variables; see
// storage/s3/s3_config.h) and `az://container/prefix` (Unsupported until its backend lands).
// The Runtime bundles what library code may not create itself (docs/design/overview.md "Layers"):
// Clock, Random, Executor and ObjectStore.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/executor.h"
#include "base/random.h"
#include "storage/local_store.h"
#include "storage/object_store.h"

namespace omnigraph::storage {

enum class Scheme { kFile, kMemory, kS3, kAzure };

struct StoreUri {
  Scheme scheme = Scheme::kFile;
  // kFile: the directory; kMemory: the store name; kS3/kAzure: bucket or container.
  std::string location;
  // kS3/kAzure: the key prefix inside the bucket (no leading or trailing '/'); else empty.
  std::string prefix;

  std::string ToString() const;
};

// InvalidArgument with the reason for a malformed URI (empty, unknown scheme, relative file://
// path, empty bucket, bad characters).
Result<StoreUri> ParseStoreUri(std::string_view uri);

struct OpenOptions {
  LocalStoreOptions local;
};

Result<std::shared_ptr<ObjectStore>> OpenStore(const StoreUri& uri,
                                               const OpenOptions& options = {});
Result<std::shared_ptr<ObjectStore>> OpenStore(std::string_view uri,
                                               const OpenOptions& options = {});

struct Runtime {
  std::shared_ptr<Clock> clock;
  std::shared_ptr<Random> random;
  std::shared_ptr<Executor> executor;
  std::shared_ptr<ObjectStore> store;
  // Where a read's independent store reads run (the records up to the hint, the manifests and
  // index objects read ahead, a branch's metadata beside its hint): null runs them on
  // `executor`. A handle on a local store sets an InlineExecutor, so those reads run on the
  // caller's thread: a local read is a copy or a mapping, cheaper than handing it to a pool
  // thread and waiting (decision 229). Writes, loads and scans keep `executor`.
  std::shared_ptr<Executor> reads;

  // The executor a read's independent store reads run on: `reads`, else `executor`.
  Executor& ReadExecutor() const { return reads != nullptr ? *reads : *executor; }

  // Production seams over `store`: system clock, entropy-seeded Random, a pool of `threads`.
  static Runtime ForStore(std::shared_ptr<ObjectStore> store, size_t threads = 8);
  // The clock ForStore's runtimes read (the system's), for callers with no runtime of their own
  // (api::Database::MonotonicMicros, which paces front ends).
  static Clock& SystemRuntimeClock();
  // Deterministic seams for tests: manual clock, seeded Random, inline executor.
  static Runtime ForTest(std::shared_ptr<ObjectStore> store, uint64_t seed = 1);
};

}  // namespace omnigraph::storage

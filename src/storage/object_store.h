// ObjectStore: the one narrow interface every layer above uses to reach storage
// (docs/design/overview.md "Failures"; the contract in prose, durability included, is
// docs/design/storage.md).
//
// Objects are immutable-or-replaced byte strings addressed by '/'-separated names. The only
// coordination primitive the system relies on is PutIfAbsent: a true fence on every backend —
// of any number of concurrent callers (threads, processes, machines) creating one name, exactly
// one gets `true`. PutIfMatch is a compare-and-swap on the etag, used only for a branch's
// `retired` marker. Every implementation is thread-safe.
//
// Failures carry a storage kind: kNotFound, kPrecondition (a PutIfMatch lost), kTransient
// (nothing happened; retry is safe), kUnknown (a mutating request may or may not have taken
// effect), kConfiguration, kPermanent; a bad name or range is kInvalidArgument and touches nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/shared_bytes.h"

namespace omnigraph::storage {

// Names are at most this long (S3's and Azure's limit).
inline constexpr size_t kObjectNameBytesMax = 1024;
// List pages hold at most this many entries.
inline constexpr size_t kListPageSizeMax = 1000;

struct ObjectMeta {
  std::string name;
  uint64_t size_bytes = 0;
  // Opaque; changes on every successful write of the name.
  std::string etag;
  // Unix microseconds of the last write, by the store's clock.
  int64_t last_modified_micros = 0;
};

// A byte range [offset, offset + length). Reads past the end return the bytes that exist.
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct GetResult {
  std::string data;
  // The whole object's metadata (size is the full size even for a range read).
  ObjectMeta meta;
};

// What GetShared returns: the bytes (shared, immutable) and the whole object's metadata.
struct SharedGetResult {
  SharedBytes data;
  ObjectMeta meta;
};

struct ListOptions {
  std::string prefix;
  // Only names strictly greater than this (byte order).
  std::string start_after;
  size_t page_size = kListPageSizeMax;
  // From a previous page; empty for the first page.
  std::string continuation;
};

struct ListPage {
  // In byte order of name.
  std::vector<ObjectMeta> objects;
  // Empty when this is the last page.
  std::string continuation;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // The whole object, or `range` of it. NotFound when absent; InvalidArgument when the range
  // starts past the end of a non-empty object or has zero length.
  virtual Result<GetResult> Get(std::string_view name,
                                std::optional<ByteRange> range = std::nullopt) = 0;
  // As Get, but the bytes come back shared and immutable, so that a reader can decode views into
  // them instead of copies. A LocalStore maps the file read-only (no copy; pages are read as they
  // are touched); every other store reads with Get, which is what this default does. A wrapper
  // that counts or injects faults implements it itself, so that it sees the call. Errors as Get.
  virtual Result<SharedGetResult> GetShared(std::string_view name,
                                            std::optional<ByteRange> range = std::nullopt);
  // Size, etag and last-modified. NotFound when absent.
  virtual Result<ObjectMeta> Head(std::string_view name) = 0;
  // Creates or atomically replaces the object: readers see the old bytes or the new, never a mix.
  virtual Status Put(std::string_view name, std::string_view data) = 0;
  // Creates the object only if the name is free. true = created by this call; false = the name
  // already existed (not an error; the existing object is untouched).
  virtual Result<bool> PutIfAbsent(std::string_view name, std::string_view data) = 0;
  // Replaces the object only if its etag is still `etag`; returns the new etag.
  // Precondition when the etag no longer matches; NotFound when the object is absent.
  virtual Result<std::string> PutIfMatch(std::string_view name, std::string_view data,
                                         std::string_view etag) = 0;
  // One page of names under a prefix, in byte order.
  virtual Result<ListPage> List(const ListOptions& options) = 0;
  // Removes the object; deleting an absent name succeeds.
  virtual Status Delete(std::string_view name) = 0;
  // A URI-like description for messages ("file:///tmp/g", "memory://t").
  virtual std::string Describe() const = 0;
  // How long after it was sent a mutating request answered Unknown (a timeout, a reset
  // connection) may still take effect at the store. 0 for a store whose calls have taken effect
  // or not by the time they return (memory, a local directory). A writer that must know whether
  // such a request can still land waits this long (docs/design/commit-record.md "Gaps").
  virtual int64_t UnknownOutcomeWindowMicros() const { return 0; }
  // True for a store whose every request crosses a network (S3, Azure Blob): a request costs a
  // round trip of milliseconds that dwarfs the bytes of a moderate object, so readers keep more
  // requests in flight and read an object whole where a local store would read a few ranges
  // (decision 213). A wrapper answers as the store it wraps.
  virtual bool Remote() const { return false; }
};

// InvalidArgument unless `name` is a valid object name: non-empty, at most kObjectNameBytesMax
// bytes, no empty segment (no leading, trailing or doubled '/'), no '.' or '..' segment, no
// control characters (bytes below 0x20 and 0x7f).
Status ValidateObjectName(std::string_view name);

// Lists every object under `prefix` (all pages), in byte order.
Result<std::vector<ObjectMeta>> ListAll(ObjectStore& store, std::string_view prefix,
                                        std::string_view start_after = {});

}  // namespace omnigraph::storage

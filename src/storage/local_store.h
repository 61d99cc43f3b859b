// LocalStore: an ObjectStore in a directory of the local file system.
//
// Object `a/b` is the file `{root}/a/b`. Every write first writes a complete temporary file under
// `{root}/.omnigraph-tmp/`, so a crash leaves either no object or a complete one:
//   - PutIfAbsent link(2)s the temporary file into place; link fails if the name exists, which
//     makes it a fence across threads and processes.
//   - Put and PutIfMatch rename(2) the temporary file over the name. PutIfMatch (and Put and
//     Delete, so that a compare-and-swap is never interleaved with another write of the name)
//     hold an exclusive flock(2) on one of kLockStripes lock files; the kernel drops it if the
//     process dies, and the etag is compared under the lock, never compare-then-replace.
// The etag is derived from inode, size, mtime and ctime (nanoseconds), which every write changes.
// A name segment longer than kSegmentBytesMax is InvalidArgument.
// `.omnigraph-tmp` is reserved: it never appears in List and names under it are InvalidArgument.
// Opening creates nothing: the root (with its parents) and the temporary directory are made by
// the first write, so a read of a missing path, or a first write that fails, leaves no trace.
// Temporary files older than kStaleTempAgeMicros are swept when the store is opened.
// With `fsync`, each write fsyncs the file and, after link/rename, its directory, so an
// acknowledged write survives power loss; without it, it survives a process crash only.
// GetShared maps a range of at least kMapBytesMin bytes read-only (mmap) instead of copying it;
// smaller ranges are read, since a mapping costs more than copying a few pages. A mapping stays
// valid after the object is replaced or deleted (the old file stays mapped). A file truncated in
// place by something other than this store would make a reader of its mapping fault; the store
// itself never writes a file that has a name.
// Thread-safe; safe across processes sharing the directory.
#pragma once

#include <atomic>

#include "storage/object_store.h"

namespace omnigraph::storage {

struct LocalStoreOptions {
  bool fsync = false;
};

class LocalStore final : public ObjectStore {
 public:
  static constexpr std::string_view kTempDir = ".omnigraph-tmp";
  static constexpr int kLockStripes = 64;
  // File systems limit one path component to 255 bytes.
  static constexpr size_t kSegmentBytesMax = 255;
  static constexpr int64_t kStaleTempAgeMicros = 3600LL * 1000 * 1000;
  // GetShared maps ranges at least this long and reads shorter ones. A copy needs fresh pages,
  // each zeroed and faulted in one by one, where a mapping of the file's cached pages faults in
  // only the pages a reader touches, sixteen at a time: from about 64 KiB a mapping is the cheaper
  // (decision 244; 256 KiB before, decision 78).
  static constexpr uint64_t kMapBytesMin = 64 * 1024;

  // Opens the directory `root` (which need not exist yet; nothing is created until the first
  // write) and sweeps stale temporary files. Configuration when `root` is not a directory.
  static Result<std::unique_ptr<LocalStore>> Open(std::string root, LocalStoreOptions options = {});

  Result<GetResult> Get(std::string_view name,
                        std::optional<ByteRange> range = std::nullopt) override;
  // Maps the file (or the range's pages) read-only when the range is at least kMapBytesMin
  // bytes; reads it otherwise, or when the file system cannot map it. Errors as Get.
  Result<SharedGetResult> GetShared(std::string_view name,
                                    std::optional<ByteRange> range = std::nullopt) override;
  Result<ObjectMeta> Head(std::string_view name) override;
  Status Put(std::string_view name, std::string_view data) override;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override;
  Result<std::string> PutIfMatch(std::string_view name, std::string_view data,
                                 std::string_view etag) override;
  Result<ListPage> List(const ListOptions& options) override;
  Status Delete(std::string_view name) override;
  std::string Describe() const override { return "file://" + root_; }

  const std::string& root() const { return root_; }
  // Removes temporary files older than `age_micros` (tests call it with 0).
  Status SweepTemporaryFiles(int64_t age_micros);

 private:
  LocalStore(std::string root, LocalStoreOptions options);

  Status CheckName(std::string_view name) const;
  // Opens the object's file for reading and fills `meta`; returns the descriptor. NotFound when
  // absent (or not a regular file).
  Result<int> OpenObject(std::string_view name, ObjectMeta& meta) const;
  std::string PathOf(std::string_view name) const { return root_ + "/" + std::string(name); }
  // Writes `data` to a fresh temporary file; returns its path.
  Result<std::string> WriteTemp(std::string_view name, std::string_view data);
  Status EnsureParentDirs(std::string_view name);
  // Creates the root, its missing parents and the temporary directory; on failure removes the
  // directories it made.
  Status EnsureTempDir();
  Status SyncDirOf(const std::string& path);
  // Opens and exclusively flocks the lock stripe of `name`; returns the descriptor.
  Result<int> LockName(std::string_view name);

  const std::string root_;
  const LocalStoreOptions options_;
  std::atomic<uint64_t> temp_counter_{0};
};

}  // namespace omnigraph::storage

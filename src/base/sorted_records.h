// Sorting more records than memory should hold: ExternalSorter takes (key, value) byte-string
// records in any order and hands them back in ascending (key, value) order as SortedRecords,
// holding at most its memory budget of records at a time; the rest goes to sorted runs in
// unlinked temporary files (under $TMPDIR, else /tmp) that a k-way merge combines. A load uses
// it so that its per-entity bookkeeping (ids, endpoints, @unique tuples) does not grow with the
// input (docs/design/load.md "Streaming and the memory bound").
//
// Order is bytewise (memcmp) on the key, then on the value. Encoded records are
// varint(key length) varint(value length) key value.
// Thread-safety: an ExternalSorter or a Reader is used by one thread at a time; a SortedRecords
// is immutable and may be opened by any number of threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace omnigraph {

// Bytes of records (plus 16 bytes of bookkeeping each) an ExternalSorter holds in memory before
// it writes a run: 64 MiB. Each of its two buffers stays within it too (one record larger than
// the budget gets room of its own size).
inline constexpr uint64_t kSorterMemoryBytes = 64ull << 20;
// Runs merged at once; more are merged in passes (each run reader buffers kSortReadBytes).
inline constexpr size_t kSortMergeFanIn = 64;
inline constexpr size_t kSortReadBytes = 256u << 10;

// A file that no directory names: created under $TMPDIR (else /tmp) and unlinked at once, so it
// is gone when closed, including when the process dies.
class TempFile {
 public:
  static Result<std::unique_ptr<TempFile>> Create();
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  Status Append(std::string_view bytes);
  // Reads `out.size()` bytes at `offset` (short only at the end of the file).
  Result<size_t> ReadAt(uint64_t offset, std::span<char> out) const;
  uint64_t size() const { return size_; }

 private:
  explicit TempFile(int fd) : fd_(fd) {}
  int fd_;
  uint64_t size_ = 0;
};

class SortedRecords {
 public:
  class Reader {
   public:
    virtual ~Reader() = default;
    // The next record; false at the end. The views stay valid until the next call.
    virtual Result<bool> Next(std::string_view* key, std::string_view* value) = 0;
  };

  // Records encoded in `bytes` (in order), or in `file`.
  SortedRecords(std::string bytes, uint64_t count);
  SortedRecords(std::unique_ptr<TempFile> file, uint64_t count);
  ~SortedRecords();

  // In-memory records holding `keys` (in any order, duplicates kept) with empty values.
  static std::shared_ptr<const SortedRecords> FromKeys(std::vector<std::string_view> keys);

  std::unique_ptr<Reader> Open() const;
  // Calls `fn` with each key in order (the values are not shown).
  Status ForEachKey(const std::function<Status(std::string_view)>& fn) const;
  uint64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // True when the records are in a file rather than in memory.
  bool spilled() const { return file_ != nullptr; }

 private:
  std::string bytes_;
  std::unique_ptr<TempFile> file_;
  uint64_t count_;
};

// Collects records that arrive in ascending order (checked: Internal otherwise) into
// SortedRecords: in memory up to `memory_bytes`, then in a temporary file.
class SortedRecordsWriter {
 public:
  explicit SortedRecordsWriter(uint64_t memory_bytes = kSorterMemoryBytes);
  Status Add(std::string_view key, std::string_view value = {});
  Result<std::shared_ptr<const SortedRecords>> Finish();

 private:
  Status Flush();
  uint64_t memory_bytes_;
  std::string buffer_;
  std::string last_key_, last_value_;
  std::unique_ptr<TempFile> file_;
  uint64_t count_ = 0;
};

class ExternalSorter {
 public:
  explicit ExternalSorter(uint64_t memory_bytes = kSorterMemoryBytes);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  Status Add(std::string_view key, std::string_view value = {});
  // Every record added, in order; the sorter is empty again afterwards.
  Result<std::shared_ptr<const SortedRecords>> Finish();

  uint64_t size() const { return count_; }
  // Runs written to temporary files (0 while everything fits the budget), since construction.
  uint64_t runs_spilled() const { return runs_spilled_; }

 private:
  struct Entry {
    uint64_t offset;
    uint32_t key_bytes;
    uint32_t value_bytes;
  };
  void SortBuffer();
  // Writes the buffer as a sorted run (merging a level that reaches kSortMergeFanIn runs).
  Status SpillBuffer();

  uint64_t memory_bytes_;
  std::string arena_;
  std::vector<Entry> entries_;
  // Spilled runs by level: level L + 1 runs each merged kSortMergeFanIn runs of level L.
  std::vector<std::vector<std::shared_ptr<const SortedRecords>>> levels_;
  uint64_t count_ = 0;
  uint64_t runs_spilled_ = 0;
};

// Fixed-width big-endian numbers, whose bytewise order is their numeric order: how sort keys and
// values carry numbers. `width` is 1..8 bytes; BigEndianAt reads bytes[offset, offset + width).
void PutBigEndian(uint64_t v, int width, std::string* out);
uint64_t BigEndianAt(std::string_view bytes, size_t offset, int width = 8);

// Appends varint(key) varint(value) key value to `out`.
void EncodeRecord(std::string_view key, std::string_view value, std::string* out);

}  // namespace omnigraph

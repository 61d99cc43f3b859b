#include "base/sorted_records.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <queue>

namespace omnigraph {

namespace {

Status FileError(const char* what, int err) {
  return Status(Code::kTransient,
                std::string("temporary file ") + what + ": " + std::strerror(err));
}

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Decodes a varint from [p, end); null when it is incomplete (or over-long).
const char* GetVarint(const char* p, const char* end, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const uint8_t b = static_cast<uint8_t>(*p++);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return p;
  }
  return nullptr;
}

// Decodes the record at [p, end): its key and value views and the byte after it; null when the
// bytes hold only part of a record.
const char* DecodeRecord(const char* p, const char* end, std::string_view* key,
                         std::string_view* value) {
  uint64_t key_bytes = 0, value_bytes = 0;
  p = GetVarint(p, end, &key_bytes);
  if (p == nullptr) return nullptr;
  p = GetVarint(p, end, &value_bytes);
  if (p == nullptr || static_cast<uint64_t>(end - p) < key_bytes + value_bytes) return nullptr;
  *key = std::string_view(p, key_bytes);
  *value = std::string_view(p + key_bytes, value_bytes);
  return p + key_bytes + value_bytes;
}

int CompareRecords(std::string_view ka, std::string_view va, std::string_view kb,
                   std::string_view vb) {
  const int c = ka.compare(kb);
  return c != 0 ? c : va.compare(vb);
}

class MemoryReader : public SortedRecords::Reader {
 public:
  explicit MemoryReader(std::string_view bytes) : p_(bytes.data()), end_(p_ + bytes.size()) {}
  Result<bool> Next(std::string_view* key, std::string_view* value) override {
    if (p_ == end_) return false;
    const char* next = DecodeRecord(p_, end_, key, value);
    if (next == nullptr) return Internal("sorted records end inside a record");
    p_ = next;
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

class FileReader : public SortedRecords::Reader {
 public:
  explicit FileReader(const TempFile& file) : file_(file), buffer_(kSortReadBytes) {}
  Result<bool> Next(std::string_view* key, std::string_view* value) override {
    while (true) {
      const char* next = DecodeRecord(buffer_.data() + pos_, buffer_.data() + end_, key, value);
      if (next != nullptr) {
        pos_ = static_cast<size_t>(next - buffer_.data());
        return true;
      }
      if (offset_ == file_.size()) {
        if (pos_ == end_) return false;
        return Internal("sorted records file ends inside a record");
      }
      // Keep the partial record, make room (a record larger than the buffer grows it), read on.
      std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
      if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
      OMNIGRAPH_ASSIGN_OR_RETURN(
          size_t got,
          file_.ReadAt(offset_, std::span<char>(buffer_.data() + end_, buffer_.size() - end_)));
      if (got == 0) return Internal("sorted records file is shorter than written");
      offset_ += got;
      end_ += got;
    }
  }

 private:
  const TempFile& file_;
  std::vector<char> buffer_;
  size_t pos_ = 0, end_ = 0;
  uint64_t offset_ = 0;
};

// Merges `runs` into one SortedRecords.
Result<std::shared_ptr<const SortedRecords>> Merge(
    const std::vector<std::shared_ptr<const SortedRecords>>& runs, uint64_t memory_bytes) {
  struct Head {
    SortedRecords::Reader* reader;
    std::string_view key, value;
  };
  auto later = [](const Head& a, const Head& b) {
    return CompareRecords(a.key, a.value, b.key, b.value) > 0;
  };
  std::vector<std::unique_ptr<SortedRecords::Reader>> readers;
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heap(later);
  for (const auto& run : runs) {
    readers.push_back(run->Open());
    Head h{readers.back().get(), {}, {}};
    OMNIGRAPH_ASSIGN_OR_RETURN(bool has, h.reader->Next(&h.key, &h.value));
    if (has) heap.push(h);
  }
  SortedRecordsWriter out(memory_bytes);
  while (!heap.empty()) {
    Head h = heap.top();
    heap.pop();
    OMNIGRAPH_RETURN_IF_ERROR(out.Add(h.key, h.value));
    OMNIGRAPH_ASSIGN_OR_RETURN(bool has, h.reader->Next(&h.key, &h.value));
    if (has) heap.push(h);
  }
  return out.Finish();
}

}  // namespace

void PutBigEndian(uint64_t v, int width, std::string* out) {
  // One append of the value's low `width` bytes, most significant first (a load writes one per
  // row: a push_back per byte was 4% of its thread).
  const uint64_t be = std::endian::native == std::endian::little ? __builtin_bswap64(v) : v;
  char bytes[8];
  std::memcpy(bytes, &be, 8);
  out->append(bytes + 8 - width, static_cast<size_t>(width));
}

uint64_t BigEndianAt(std::string_view bytes, size_t offset, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return v;
}

void EncodeRecord(std::string_view key, std::string_view value, std::string* out) {
  PutVarint(key.size(), out);
  PutVarint(value.size(), out);
  out->append(key);
  out->append(value);
}

// --- TempFile

Result<std::unique_ptr<TempFile>> TempFile::Create() {
  const char* dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/omnigraph-sort-XXXXXX";
  const int fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) return FileError("create", errno);
  if (::unlink(path.c_str()) != 0) {
    const int err = errno;
    ::close(fd);
    return FileError("unlink", err);
  }
  return std::unique_ptr<TempFile>(new TempFile(fd));
}

TempFile::~TempFile() { ::close(fd_); }

Status TempFile::Append(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(size_));
    if (n < 0) {
      if (errno == EINTR) continue;
      return FileError("write", errno);
    }
    size_ += static_cast<uint64_t>(n);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Result<size_t> TempFile::ReadAt(uint64_t offset, std::span<char> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return FileError("read", errno);
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

// --- SortedRecords

SortedRecords::SortedRecords(std::string bytes, uint64_t count)
    : bytes_(std::move(bytes)), count_(count) {}
SortedRecords::SortedRecords(std::unique_ptr<TempFile> file, uint64_t count)
    : file_(std::move(file)), count_(count) {}
SortedRecords::~SortedRecords() = default;

std::shared_ptr<const SortedRecords> SortedRecords::FromKeys(std::vector<std::string_view> keys) {
  std::sort(keys.begin(), keys.end());
  std::string bytes;
  for (std::string_view k : keys) EncodeRecord(k, {}, &bytes);
  return std::make_shared<const SortedRecords>(std::move(bytes), keys.size());
}

Status SortedRecords::ForEachKey(const std::function<Status(std::string_view)>& fn) const {
  std::unique_ptr<Reader> reader = Open();
  std::string_view key, value;
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool more, reader->Next(&key, &value));
    if (!more) return Status::Ok();
    OMNIGRAPH_RETURN_IF_ERROR(fn(key));
  }
}

std::unique_ptr<SortedRecords::Reader> SortedRecords::Open() const {
  if (file_ != nullptr) return std::make_unique<FileReader>(*file_);
  return std::make_unique<MemoryReader>(bytes_);
}

// --- SortedRecordsWriter

SortedRecordsWriter::SortedRecordsWriter(uint64_t memory_bytes) : memory_bytes_(memory_bytes) {}

Status SortedRecordsWriter::Add(std::string_view key, std::string_view value) {
  if (count_ > 0 && CompareRecords(key, value, last_key_, last_value_) < 0) {
    return Internal("records given to a SortedRecordsWriter out of order");
  }
  last_key_.assign(key);
  last_value_.assign(value);
  EncodeRecord(key, value, &buffer_);
  ++count_;
  // In memory up to the budget; once in a file, written in kSortReadBytes pieces.
  if (file_ == nullptr ? buffer_.size() > memory_bytes_ : buffer_.size() >= kSortReadBytes) {
    return Flush();
  }
  return Status::Ok();
}

Status SortedRecordsWriter::Flush() {
  if (file_ == nullptr) {
    OMNIGRAPH_ASSIGN_OR_RETURN(file_, TempFile::Create());
  }
  OMNIGRAPH_RETURN_IF_ERROR(file_->Append(buffer_));
  buffer_.clear();
  return Status::Ok();
}

Result<std::shared_ptr<const SortedRecords>> SortedRecordsWriter::Finish() {
  const uint64_t count = std::exchange(count_, 0);
  if (file_ == nullptr) {
    return std::make_shared<const SortedRecords>(std::exchange(buffer_, {}), count);
  }
  OMNIGRAPH_RETURN_IF_ERROR(Flush());
  buffer_.shrink_to_fit();
  return std::make_shared<const SortedRecords>(std::move(file_), count);
}

// --- ExternalSorter

ExternalSorter::ExternalSorter(uint64_t memory_bytes) : memory_bytes_(memory_bytes) {}
ExternalSorter::~ExternalSorter() = default;

Status ExternalSorter::Add(std::string_view key, std::string_view value) {
  if (key.size() > UINT32_MAX || value.size() > UINT32_MAX) {
    return InvalidArgument("a sort record is larger than 4 GiB");
  }
  const uint64_t bytes = key.size() + value.size();
  // Full when the records held, this one included, would pass the budget.
  if (!entries_.empty() &&
      arena_.size() + bytes + (entries_.size() + 1) * sizeof(Entry) > memory_bytes_) {
    OMNIGRAPH_RETURN_IF_ERROR(SpillBuffer());
  }
  // Grow by doubling, but never past the budget (a record larger than the budget gets room of
  // its own size); the buffers keep their capacity across runs, so they grow once.
  if (arena_.size() + bytes > arena_.capacity()) {
    arena_.reserve(std::max<uint64_t>(
        arena_.size() + bytes, std::min<uint64_t>(2 * arena_.capacity() + 64, memory_bytes_)));
  }
  if (entries_.size() == entries_.capacity()) {
    entries_.reserve(std::max<uint64_t>(
        entries_.size() + 1,
        std::min<uint64_t>(2 * entries_.capacity() + 4, memory_bytes_ / sizeof(Entry))));
  }
  entries_.push_back(
      Entry{arena_.size(), static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size())});
  arena_.append(key);
  arena_.append(value);
  ++count_;
  return Status::Ok();
}

void ExternalSorter::SortBuffer() {
  const char* base = arena_.data();
  std::sort(entries_.begin(), entries_.end(), [base](const Entry& a, const Entry& b) {
    return CompareRecords(std::string_view(base + a.offset, a.key_bytes),
                          std::string_view(base + a.offset + a.key_bytes, a.value_bytes),
                          std::string_view(base + b.offset, b.key_bytes),
                          std::string_view(base + b.offset + b.key_bytes, b.value_bytes)) < 0;
  });
}

Status ExternalSorter::SpillBuffer() {
  SortBuffer();
  SortedRecordsWriter run(/*memory_bytes=*/0);
  for (const Entry& e : entries_) {
    OMNIGRAPH_RETURN_IF_ERROR(
        run.Add(std::string_view(arena_.data() + e.offset, e.key_bytes),
                std::string_view(arena_.data() + e.offset + e.key_bytes, e.value_bytes)));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> records, run.Finish());
  ++runs_spilled_;
  // Runs are kept by level: kSortMergeFanIn runs of one level merge into one of the next, so
  // each record is rewritten once per level (log base kSortMergeFanIn of the runs), and a sort
  // keeps fewer than kSortMergeFanIn files open per level.
  std::shared_ptr<const SortedRecords> carry = std::move(records);
  for (size_t level = 0; carry != nullptr; ++level) {
    if (levels_.size() == level) levels_.emplace_back();
    levels_[level].push_back(std::move(carry));
    carry = nullptr;
    if (levels_[level].size() >= kSortMergeFanIn) {
      OMNIGRAPH_ASSIGN_OR_RETURN(carry, Merge(levels_[level], /*memory_bytes=*/0));
      levels_[level].clear();
    }
  }
  // Keep the buffers' capacity for the next run: they do not grow (and copy) again.
  arena_.clear();
  entries_.clear();
  return Status::Ok();
}

Result<std::shared_ptr<const SortedRecords>> ExternalSorter::Finish() {
  count_ = 0;
  if (levels_.empty()) {
    SortBuffer();
    std::string bytes;
    for (const Entry& e : entries_) {
      EncodeRecord(std::string_view(arena_.data() + e.offset, e.key_bytes),
                   std::string_view(arena_.data() + e.offset + e.key_bytes, e.value_bytes), &bytes);
    }
    const uint64_t count = entries_.size();
    std::string().swap(arena_);
    std::vector<Entry>().swap(entries_);
    return std::make_shared<const SortedRecords>(std::move(bytes), count);
  }
  if (!entries_.empty()) OMNIGRAPH_RETURN_IF_ERROR(SpillBuffer());
  std::string().swap(arena_);
  std::vector<Entry>().swap(entries_);
  std::vector<std::shared_ptr<const SortedRecords>> runs;
  for (auto& level : levels_) runs.insert(runs.end(), level.begin(), level.end());
  levels_.clear();
  // Merge passes until one run is left; each merges up to kSortMergeFanIn runs.
  while (runs.size() > 1) {
    std::vector<std::shared_ptr<const SortedRecords>> next;
    for (size_t i = 0; i < runs.size(); i += kSortMergeFanIn) {
      const size_t end = std::min(runs.size(), i + kSortMergeFanIn);
      std::vector<std::shared_ptr<const SortedRecords>> group(runs.begin() + i, runs.begin() + end);
      if (group.size() == 1) {
        next.push_back(group[0]);
        continue;
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> merged,
                                 Merge(group, /*memory_bytes=*/0));
      next.push_back(std::move(merged));
    }
    runs = std::move(next);
  }
  return runs[0];
}

}  // namespace omnigraph

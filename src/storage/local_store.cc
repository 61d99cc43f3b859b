#include "storage/local_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/hash.h"
#include "storage/memory_store.h"

namespace omnigraph::storage {

namespace {

Status ErrnoStatus(int err, std::string_view what, std::string_view name, bool mutated) {
  std::string message = std::string(what) + ": " + std::strerror(err);
  Code code;
  switch (err) {
    case ENOENT: code = Code::kNotFound; break;
    case EACCES:
    case EPERM:
    case EROFS: code = Code::kConfiguration; break;
    case ENOTDIR:
    case EISDIR:
      return Status(Code::kInvalidArgument,
                    message + " (the name conflicts with another object used as a directory)",
                    std::string(name));
    case EINTR:
    case EAGAIN: code = Code::kTransient; break;
    default: code = mutated ? Code::kUnknown : Code::kPermanent; break;
  }
  return Status(code, std::move(message), std::string(name));
}

int64_t ToMicros(const struct timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

ObjectMeta MetaFromStat(std::string_view name, const struct stat& st) {
  ObjectMeta meta;
  meta.name = std::string(name);
  meta.size_bytes = static_cast<uint64_t>(st.st_size);
  char etag[96];
  std::snprintf(etag, sizeof(etag), "%llx-%llx-%llx.%lx-%llx.%lx",
                static_cast<unsigned long long>(st.st_ino),
                static_cast<unsigned long long>(st.st_size),
                static_cast<unsigned long long>(st.st_mtim.tv_sec),
                static_cast<unsigned long>(st.st_mtim.tv_nsec),
                static_cast<unsigned long long>(st.st_ctim.tv_sec),
                static_cast<unsigned long>(st.st_ctim.tv_nsec));
  meta.etag = etag;
  meta.last_modified_micros = ToMicros(st.st_mtim);
  return meta;
}

Status WriteAll(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "write", "", false);
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<std::string> ReadRange(int fd, uint64_t offset, uint64_t length, std::string_view name) {
  std::string out(length, '\0');
  uint64_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "read", name, false);
    }
    if (n == 0) break;  // The file is immutable once linked; a short read means it shrank.
    done += static_cast<uint64_t>(n);
  }
  out.resize(done);
  return out;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

LocalStore::LocalStore(std::string root, LocalStoreOptions options)
    : root_(std::move(root)), options_(options) {}

Result<std::unique_ptr<LocalStore>> LocalStore::Open(std::string root, LocalStoreOptions options) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (root.empty()) return InvalidArgument("local store root is empty");
  // Nothing is created here: the root and the temporary directory appear with the first write
  // (EnsureTempDir), so that opening a path to read it, or an init that fails before writing,
  // leaves the file system as it was.
  struct stat st;
  if (::stat(root.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return Status(Code::kConfiguration, "local store root " + root + " is not a directory");
    }
  } else if (errno != ENOENT) {
    return ErrnoStatus(errno, "opening local store root " + root, "", false);
  }
  std::unique_ptr<LocalStore> store(new LocalStore(std::move(root), options));
  OMNIGRAPH_RETURN_IF_ERROR(store->SweepTemporaryFiles(kStaleTempAgeMicros));
  return store;
}

Status LocalStore::EnsureTempDir() {
  // The root and its missing parents, then the temporary directory. Directories made here are
  // removed again when a later step fails, so a failed first write leaves nothing behind.
  std::vector<std::string> made;
  auto undo = [&] {
    for (auto it = made.rbegin(); it != made.rend(); ++it) ::rmdir(it->c_str());
  };
  const std::string temp = root_ + "/" + std::string(kTempDir);
  for (size_t pos = 1; pos <= temp.size(); ++pos) {
    if (pos != temp.size() && temp[pos] != '/') continue;
    std::string dir = temp.substr(0, pos);
    if (::mkdir(dir.c_str(), 0755) == 0) {
      made.push_back(dir);
      if (options_.fsync) {
        if (Status synced = SyncDirOf(dir); !synced.ok()) {
          undo();
          return synced;
        }
      }
    } else if (errno != EEXIST) {
      Status failed = ErrnoStatus(errno, "creating directory " + dir, "", false);
      undo();
      return failed;
    }
  }
  return Status::Ok();
}

Status LocalStore::CheckName(std::string_view name) const {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateObjectName(name));
  // Each segment is a file or directory name, limited by the file system.
  for (size_t start = 0; start < name.size();) {
    size_t end = std::min(name.find('/', start), name.size());
    if (end - start > kSegmentBytesMax) {
      return InvalidArgument("object name segment of " + std::to_string(end - start) +
                                 " bytes is longer than the local store's limit of " +
                                 std::to_string(kSegmentBytesMax),
                             std::string(name));
    }
    start = end + 1;
  }
  std::string_view first = name.substr(0, name.find('/'));
  if (first == kTempDir) {
    return InvalidArgument(
        "object names under '" + std::string(kTempDir) + "/' are reserved by the local store",
        std::string(name));
  }
  return Status::Ok();
}

Status LocalStore::SweepTemporaryFiles(int64_t age_micros) {
  std::string dir = root_ + "/" + std::string(kTempDir);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Status::Ok();
  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  while (struct dirent* e = ::readdir(d)) {
    std::string_view file = e->d_name;
    if (file.size() < 4 || file.substr(file.size() - 4) != ".tmp") continue;
    std::string path = dir + "/" + std::string(file);
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && ToMicros(now) - ToMicros(st.st_mtim) >= age_micros) {
      ::unlink(path.c_str());
    }
  }
  ::closedir(d);
  return Status::Ok();
}

Result<std::string> LocalStore::WriteTemp(std::string_view name, std::string_view data) {
  std::string dir = root_ + "/" + std::string(kTempDir) + "/";
  while (true) {
    std::string path = dir + std::to_string(::getpid()) + "-" +
                       std::to_string(temp_counter_.fetch_add(1)) + ".tmp";
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT) {
      // The first write into this root (Open creates nothing).
      OMNIGRAPH_RETURN_IF_ERROR(EnsureTempDir());
      fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
      if (errno == EEXIST) continue;  // Left by an earlier process with our pid.
      return ErrnoStatus(errno, "creating temporary file " + path, name, false);
    }
    Fd guard(fd);
    Status written = WriteAll(fd, data);
    if (written.ok() && options_.fsync && ::fsync(fd) != 0) {
      written = ErrnoStatus(errno, "fsync", name, false);
    }
    if (!written.ok()) {
      ::unlink(path.c_str());
      // Nothing is visible yet, so a failed temporary write never has an effect.
      return Status(Kind::kTransient, Code::kTransient, written.message(), std::string(name));
    }
    return path;
  }
}

Status LocalStore::EnsureParentDirs(std::string_view name) {
  for (size_t pos = name.find('/'); pos != std::string_view::npos; pos = name.find('/', pos + 1)) {
    std::string dir = PathOf(name.substr(0, pos));
    if (::mkdir(dir.c_str(), 0755) == 0) {
      if (options_.fsync) OMNIGRAPH_RETURN_IF_ERROR(SyncDirOf(dir));
    } else if (errno != EEXIST) {
      return ErrnoStatus(errno, "creating directory", name, false);
    }
  }
  return Status::Ok();
}

Status LocalStore::SyncDirOf(const std::string& path) {
  std::string dir = path.substr(0, path.rfind('/'));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "opening directory " + dir, "", true);
  Fd guard(fd);
  if (::fsync(fd) != 0) return ErrnoStatus(errno, "fsync of directory " + dir, "", true);
  return Status::Ok();
}

Result<int> LocalStore::LockName(std::string_view name) {
  int stripe = static_cast<int>(XxHash64(name) % kLockStripes);
  std::string path = root_ + "/" + std::string(kTempDir) + "/" + std::to_string(stripe) + ".lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT) {
    OMNIGRAPH_RETURN_IF_ERROR(EnsureTempDir());
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  }
  if (fd < 0) return ErrnoStatus(errno, "opening lock file " + path, name, false);
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus(err, "flock", name, false);
    }
  }
  return fd;
}

Result<int> LocalStore::OpenObject(std::string_view name, ObjectMeta& meta) const {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  std::string path = PathOf(name);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return Status(Code::kNotFound, "no such object", std::string(name));
    }
    return ErrnoStatus(errno, "open", name, false);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoStatus(err, "fstat", name, false);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status(Code::kNotFound, "no such object", std::string(name));
  }
  meta = MetaFromStat(name, st);
  return fd;
}

Result<GetResult> LocalStore::Get(std::string_view name, std::optional<ByteRange> range) {
  GetResult result;
  OMNIGRAPH_ASSIGN_OR_RETURN(int fd, OpenObject(name, result.meta));
  Fd guard(fd);
  uint64_t offset = 0, end = result.meta.size_bytes;
  if (range) {
    OMNIGRAPH_ASSIGN_OR_RETURN(auto span, ClampRange(name, result.meta.size_bytes, *range));
    offset = span.first;
    end = span.second;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(result.data, ReadRange(fd, offset, end - offset, name));
  return result;
}

Result<SharedGetResult> LocalStore::GetShared(std::string_view name,
                                              std::optional<ByteRange> range) {
  SharedGetResult result;
  OMNIGRAPH_ASSIGN_OR_RETURN(int fd, OpenObject(name, result.meta));
  Fd guard(fd);
  uint64_t offset = 0, end = result.meta.size_bytes;
  if (range) {
    OMNIGRAPH_ASSIGN_OR_RETURN(auto span, ClampRange(name, result.meta.size_bytes, *range));
    offset = span.first;
    end = span.second;
  }
  if (end - offset >= kMapBytesMin) {
    // The page-aligned window around the range. The file is never written again once it has a
    // name (every write links or renames a complete temporary file), so the mapping keeps
    // exactly these bytes, even after the object is replaced or deleted.
    static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t start = offset - offset % page;
    const size_t length = static_cast<size_t>(end - start);
    void* base = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
    if (base != MAP_FAILED) {
      std::shared_ptr<const void> mapping(
          base, [length](const void* p) { ::munmap(const_cast<void*>(p), length); });
      const std::string_view view(static_cast<const char*>(base) + (offset - start), end - offset);
      result.data = SharedBytes(std::move(mapping), view);
      return result;
    }
    // A file system that cannot map the file (or no address space left): read it instead.
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string data, ReadRange(fd, offset, end - offset, name));
  if (data.size() != end - offset) {
    return Status(Code::kCorruption,
                  "object file is " + std::to_string(offset + data.size()) +
                      " bytes, shorter than its size when opened (" + std::to_string(end) + ")",
                  std::string(name));
  }
  result.data = SharedBytes::FromString(std::move(data));
  return result;
}

Result<ObjectMeta> LocalStore::Head(std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  struct stat st;
  if (::stat(PathOf(name).c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return Status(Code::kNotFound, "no such object", std::string(name));
    }
    return ErrnoStatus(errno, "stat", name, false);
  }
  if (!S_ISREG(st.st_mode)) return Status(Code::kNotFound, "no such object", std::string(name));
  return MetaFromStat(name, st);
}

Status LocalStore::Put(std::string_view name, std::string_view data) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string temp, WriteTemp(name, data));
  OMNIGRAPH_ASSIGN_OR_RETURN(int lock_fd, LockName(name));
  Fd lock(lock_fd);
  std::string path = PathOf(name);
  int rc = ::rename(temp.c_str(), path.c_str());
  if (rc != 0 && errno == ENOENT) {
    // The parent folders usually exist; create them only when the rename says they do not.
    if (Status made = EnsureParentDirs(name); !made.ok()) {
      ::unlink(temp.c_str());
      return made;
    }
    rc = ::rename(temp.c_str(), path.c_str());
  }
  if (rc != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return ErrnoStatus(err, "rename", name, false);
  }
  if (options_.fsync) return SyncDirOf(path);
  return Status::Ok();
}

Result<bool> LocalStore::PutIfAbsent(std::string_view name, std::string_view data) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string temp, WriteTemp(name, data));
  std::string path = PathOf(name);
  int rc = ::link(temp.c_str(), path.c_str());
  int err = errno;
  if (rc != 0 && err == ENOENT) {
    // As in Put: create the parent folders only when the link says they are missing.
    if (Status made = EnsureParentDirs(name); !made.ok()) {
      ::unlink(temp.c_str());
      return made;
    }
    rc = ::link(temp.c_str(), path.c_str());
    err = errno;
  }
  ::unlink(temp.c_str());
  if (rc != 0) {
    if (err == EEXIST) return false;
    return ErrnoStatus(err, "link", name, false);
  }
  if (options_.fsync) OMNIGRAPH_RETURN_IF_ERROR(SyncDirOf(path));
  return true;
}

Result<std::string> LocalStore::PutIfMatch(std::string_view name, std::string_view data,
                                           std::string_view etag) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string temp, WriteTemp(name, data));
  OMNIGRAPH_ASSIGN_OR_RETURN(int lock_fd, LockName(name));
  Fd lock(lock_fd);
  std::string path = PathOf(name);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    ::unlink(temp.c_str());
    return Status(Code::kNotFound, "no such object", std::string(name));
  }
  std::string current = MetaFromStat(name, st).etag;
  if (current != etag) {
    ::unlink(temp.c_str());
    return Status(Code::kPrecondition, "etag is " + current + ", expected " + std::string(etag),
                  std::string(name));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return ErrnoStatus(err, "rename", name, false);
  }
  if (options_.fsync) OMNIGRAPH_RETURN_IF_ERROR(SyncDirOf(path));
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(errno, "stat", name, true);
  return MetaFromStat(name, st).etag;
}

Status LocalStore::Delete(std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  // A root that does not exist holds nothing to delete; do not create it to take a lock.
  struct stat root_stat;
  if (::stat(root_.c_str(), &root_stat) != 0 && errno == ENOENT) return Status::Ok();
  OMNIGRAPH_ASSIGN_OR_RETURN(int lock_fd, LockName(name));
  Fd lock(lock_fd);
  std::string path = PathOf(name);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR) {
    return ErrnoStatus(errno, "unlink", name, false);
  }
  if (options_.fsync) return SyncDirOf(path);
  return Status::Ok();
}

Result<ListPage> LocalStore::List(const ListOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateListOptions(options));
  // Walk from the deepest directory the prefix names completely, then filter and sort: a
  // directory walk does not produce byte order ('.' sorts before '/').
  std::string base = options.prefix.substr(0, options.prefix.rfind('/') + 1);
  if (options.prefix.find('/') == std::string::npos) base.clear();
  std::vector<ObjectMeta> found;
  std::vector<std::string> dirs = {base};
  while (!dirs.empty()) {
    std::string rel = std::move(dirs.back());
    dirs.pop_back();
    std::string dir_path = rel.empty() ? root_ : root_ + "/" + rel.substr(0, rel.size() - 1);
    DIR* d = ::opendir(dir_path.c_str());
    if (d == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) continue;
      return ErrnoStatus(errno, "opendir " + dir_path, "", false);
    }
    while (struct dirent* e = ::readdir(d)) {
      std::string_view entry = e->d_name;
      if (entry == "." || entry == "..") continue;
      if (rel.empty() && entry == kTempDir) continue;
      std::string name = rel + std::string(entry);
      struct stat st;
      if (::stat(PathOf(name).c_str(), &st) != 0) continue;  // Deleted meanwhile.
      if (S_ISDIR(st.st_mode)) {
        std::string as_dir = name + "/";
        // Descend only where names could still match the prefix.
        if (as_dir.compare(0, std::min(as_dir.size(), options.prefix.size()), options.prefix, 0,
                           std::min(as_dir.size(), options.prefix.size())) == 0) {
          dirs.push_back(std::move(as_dir));
        }
      } else if (S_ISREG(st.st_mode) &&
                 name.compare(0, options.prefix.size(), options.prefix) == 0) {
        found.push_back(MetaFromStat(name, st));
      }
    }
    ::closedir(d);
  }
  std::sort(found.begin(), found.end(),
            [](const ObjectMeta& a, const ObjectMeta& b) { return a.name < b.name; });
  std::string after = std::max(options.start_after, options.continuation);
  ListPage page;
  auto it = std::upper_bound(found.begin(), found.end(), after,
                             [](const std::string& a, const ObjectMeta& m) { return a < m.name; });
  for (; it != found.end(); ++it) {
    if (page.objects.size() == options.page_size) {
      page.continuation = page.objects.back().name;
      break;
    }
    page.objects.push_back(std::move(*it));
  }
  return page;
}

}  // namespace omnigraph::storage

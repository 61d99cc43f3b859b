#include "storage/memory_store.h"

#include <algorithm>

namespace omnigraph::storage {

Status ValidateListOptions(const ListOptions& options) {
  if (options.page_size == 0 || options.page_size > kListPageSizeMax) {
    return InvalidArgument("list page size " + std::to_string(options.page_size) +
                           " is outside 1.." + std::to_string(kListPageSizeMax));
  }
  if (options.prefix.size() > kObjectNameBytesMax) {
    return InvalidArgument("list prefix is longer than " + std::to_string(kObjectNameBytesMax) +
                           " bytes");
  }
  for (unsigned char c : options.prefix) {
    if (c < 0x20 || c == 0x7f) return InvalidArgument("list prefix has a control character");
  }
  return Status::Ok();
}

Result<std::pair<uint64_t, uint64_t>> ClampRange(std::string_view name, uint64_t size,
                                                 const ByteRange& range) {
  if (range.length == 0) {
    return Status(Code::kInvalidArgument, "byte range of zero length", std::string(name));
  }
  if (range.offset >= size && size > 0) {
    return Status(Code::kInvalidArgument,
                  "byte range starts at " + std::to_string(range.offset) + ", past the end of a " +
                      std::to_string(size) + "-byte object",
                  std::string(name));
  }
  uint64_t end = range.offset + std::min(range.length, size - std::min(range.offset, size));
  return std::make_pair(std::min(range.offset, size), end);
}

MemoryStore::MemoryStore(std::string label, Clock* clock)
    : label_(std::move(label)), clock_(clock ? clock : SystemClock::Default()) {}

Result<GetResult> MemoryStore::Get(std::string_view name, std::optional<ByteRange> range) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateObjectName(name));
  std::lock_guard lock(mu_);
  auto it = objects_.find(name);
  if (it == objects_.end()) return Status(Code::kNotFound, "no such object", std::string(name));
  GetResult result;
  result.meta = it->second.meta;
  if (!range) {
    result.data = it->second.data;
    return result;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(auto span, ClampRange(name, it->second.data.size(), *range));
  result.data = it->second.data.substr(span.first, span.second - span.first);
  return result;
}

Result<ObjectMeta> MemoryStore::Head(std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateObjectName(name));
  std::lock_guard lock(mu_);
  auto it = objects_.find(name);
  if (it == objects_.end()) return Status(Code::kNotFound, "no such object", std::string(name));
  return it->second.meta;
}

void MemoryStore::StoreLocked(std::string_view name, std::string_view data) {
  Entry& entry = objects_[std::string(name)];
  entry.data.assign(data);
  entry.meta.name = std::string(name);
  entry.meta.size_bytes = data.size();
  entry.meta.etag = "m" + std::to_string(++writes_);
  entry.meta.last_modified_micros = clock_->NowMicros();
}

Status MemoryStore::Put(std::string_view name, std::string_view data) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateObjectName(name));
  std::lock_guard lock(mu_);
  StoreLocked(name, data);
  return Status::Ok();
}

Result<bool> MemoryStore::PutIfAbsent(std::string_view name, std::string_view data) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateObjectName(name));
  std::lock_guard lock(mu_);
  if (objects_.find(name) != objects_.end()) return false;
  StoreLocked(name, data);
  return true;
}

Result<std::string> MemoryStore::PutIfMatch(std::string_view name, std::string_view data,
                                            std::string_view etag) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateObjectName(name));
  std::lock_guard lock(mu_);
  auto it = objects_.find(name);
  if (it == objects_.end()) return Status(Code::kNotFound, "no such object", std::string(name));
  if (it->second.meta.etag != etag) {
    return Status(Code::kPrecondition,
                  "etag is " + it->second.meta.etag + ", expected " + std::string(etag),
                  std::string(name));
  }
  StoreLocked(name, data);
  return objects_.find(name)->second.meta.etag;
}

Result<ListPage> MemoryStore::List(const ListOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateListOptions(options));
  std::string after = std::max(options.start_after, options.continuation);
  std::lock_guard lock(mu_);
  ListPage page;
  auto it = after.empty() || after < options.prefix ? objects_.lower_bound(options.prefix)
                                                    : objects_.upper_bound(after);
  for (; it != objects_.end(); ++it) {
    if (it->first.compare(0, options.prefix.size(), options.prefix) != 0) break;
    if (page.objects.size() == options.page_size) {
      page.continuation = page.objects.back().name;
      break;
    }
    page.objects.push_back(it->second.meta);
  }
  return page;
}

Status MemoryStore::Delete(std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateObjectName(name));
  std::lock_guard lock(mu_);
  auto it = objects_.find(name);
  if (it != objects_.end()) objects_.erase(it);
  return Status::Ok();
}

size_t MemoryStore::size() const {
  std::lock_guard lock(mu_);
  return objects_.size();
}

}  // namespace omnigraph::storage

#include "storage/object_store.h"

#include <algorithm>

namespace omnigraph::storage {

SharedBytes SharedBytes::FromString(std::string data) {
  auto owned = std::make_shared<const std::string>(std::move(data));
  const std::string_view view(*owned);
  return SharedBytes(std::move(owned), view);
}

SharedBytes SharedBytes::Slice(uint64_t offset, uint64_t length) const {
  const uint64_t begin = std::min<uint64_t>(offset, view_.size());
  return SharedBytes(owner_, view_.substr(begin, std::min<uint64_t>(length, view_.size() - begin)));
}

Result<SharedGetResult> ObjectStore::GetShared(std::string_view name,
                                               std::optional<ByteRange> range) {
  OMNIGRAPH_ASSIGN_OR_RETURN(GetResult got, Get(name, range));
  return SharedGetResult{SharedBytes::FromString(std::move(got.data)), std::move(got.meta)};
}

Status ValidateObjectName(std::string_view name) {
  if (name.empty()) return InvalidArgument("object name is empty");
  if (name.size() > kObjectNameBytesMax) {
    return InvalidArgument("object name is " + std::to_string(name.size()) +
                           " bytes, more than the limit of " + std::to_string(kObjectNameBytesMax));
  }
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f) {
      return InvalidArgument("object name has a control character (byte " + std::to_string(c) +
                             ") at offset " + std::to_string(i));
    }
  }
  size_t start = 0;
  while (true) {
    size_t slash = name.find('/', start);
    std::string_view segment = name.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (segment.empty()) {
      return InvalidArgument("object name '" + std::string(name) + "' has an empty segment");
    }
    if (segment == "." || segment == "..") {
      return InvalidArgument("object name '" + std::string(name) + "' has a '" +
                             std::string(segment) + "' segment");
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return Status::Ok();
}

Result<std::vector<ObjectMeta>> ListAll(ObjectStore& store, std::string_view prefix,
                                        std::string_view start_after) {
  std::vector<ObjectMeta> out;
  ListOptions options;
  options.prefix = std::string(prefix);
  options.start_after = std::string(start_after);
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(ListPage page, store.List(options));
    for (ObjectMeta& m : page.objects) out.push_back(std::move(m));
    if (page.continuation.empty()) break;
    options.continuation = std::move(page.continuation);
  }
  return out;
}

}  // namespace omnigraph::storage

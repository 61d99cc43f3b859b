#include "engine/read/external_blob.h"

#include <algorithm>

#include "engine/ops/jsonl_values.h"

namespace omnigraph::engine {

namespace {

constexpr std::string_view kDenied = "new external Blob URI ingress is denied for this graph";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One path segment, percent-decoded. InvalidArgument for a bad escape, a dot segment, or an
// encoded separator, percent sign or NUL (each would make two spellings name one object).
Result<std::string> DecodeSegment(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out.push_back(raw[i]);
      continue;
    }
    if (i + 2 >= raw.size()) return InvalidArgument("an incomplete percent escape");
    const int high = HexValue(raw[i + 1]), low = HexValue(raw[i + 2]);
    if (high < 0 || low < 0) return InvalidArgument("an invalid percent escape");
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  if (out == "." || out == "..") return InvalidArgument("a dot path component");
  if (out.find_first_of(std::string_view("\0%/\\", 4)) != std::string::npos) {
    return InvalidArgument("an encoded separator, percent sign or NUL");
  }
  return out;
}

bool Contains(const std::vector<std::string>& outer, const std::vector<std::string>& inner) {
  return inner.size() >= outer.size() && std::equal(outer.begin(), outer.end(), inner.begin());
}

}  // namespace

std::string StoredManagedBlob(std::string bytes) {
  if (!std::string_view(bytes).starts_with(kBlobTag)) return bytes;
  std::string out(kBlobTag);
  out.push_back(kBlobTagManaged);
  out += bytes;
  return out;
}

std::string StoredExternalBlob(std::string_view uri) {
  std::string out(kBlobTag);
  out.push_back(kBlobTagExternal);
  out += uri;
  return out;
}

Result<StoredBlob> ClassifyStoredBlob(std::string_view stored) {
  if (!stored.starts_with(kBlobTag)) return StoredBlob{false, stored};
  if (stored.size() < kBlobTagBytes) return Corruption("a Blob value has a truncated tag");
  const char kind = stored[kBlobTag.size()];
  if (kind == kBlobTagManaged) return StoredBlob{false, stored.substr(kBlobTagBytes)};
  if (kind == kBlobTagExternal && stored.size() > kBlobTagBytes &&
      stored.size() - kBlobTagBytes <= kExternalBlobUriBytesMax) {
    return StoredBlob{true, stored.substr(kBlobTagBytes)};
  }
  return Corruption("a Blob value has a malformed external descriptor");
}

Result<ExternalBlobRules::Parsed> ExternalBlobRules::Parse(std::string_view uri, bool base) {
  if (uri.empty() || uri.size() > kExternalBlobUriBytesMax) {
    return InvalidArgument("external Blob URI must be 1 to " +
                           std::to_string(kExternalBlobUriBytesMax) + " bytes");
  }
  if (uri.find_first_of(" \t\r\n\\?#") != std::string_view::npos) {
    return InvalidArgument(
        "external Blob URI may not contain whitespace, backslashes, a query or a fragment");
  }
  const size_t colon = uri.find("://");
  if (colon == std::string_view::npos) {
    return InvalidArgument("external Blob URI is not a valid absolute URI");
  }
  Parsed p;
  for (char c : uri.substr(0, colon)) p.scheme.push_back(static_cast<char>(std::tolower(c)));
  std::string_view rest = uri.substr(colon + 3);
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) {
    return InvalidArgument("external Blob URI must contain an absolute path");
  }
  for (char c : rest.substr(0, slash)) p.authority.push_back(static_cast<char>(std::tolower(c)));
  if (p.authority.find_first_of("@:") != std::string::npos) {
    return InvalidArgument("external Blob URI may not contain credentials or an explicit port");
  }
  if (p.scheme == "s3") {
    if (p.authority.empty()) return InvalidArgument("an s3 external Blob URI must name a bucket");
  } else if (p.scheme == "file") {
    if (!p.authority.empty()) {
      return InvalidArgument("file external Blob URIs must be local and may not contain a host");
    }
  } else {
    return InvalidArgument("external Blob URI scheme '" + p.scheme +
                           "' is not supported by this build");
  }
  std::string_view path = rest.substr(slash + 1);
  if (base && path.ends_with('/')) path.remove_suffix(1);
  while (!path.empty()) {
    const size_t next = path.find('/');
    const std::string_view raw = path.substr(0, next);
    if (raw.empty()) return InvalidArgument("external Blob URI has an empty path component");
    Result<std::string> segment = DecodeSegment(raw);
    if (!segment.ok()) {
      return InvalidArgument("external Blob URI contains " + segment.status().message());
    }
    p.segments.push_back(std::move(*segment));
    if (next == std::string_view::npos) break;
    path.remove_prefix(next + 1);
    if (path.empty()) return InvalidArgument("external Blob URI must name an object, not a folder");
  }
  return p;
}

Result<ExternalBlobRules> ExternalBlobRules::Make(const std::vector<ExternalBlobBase>& bases) {
  ExternalBlobRules rules;
  for (const ExternalBlobBase& b : bases) {
    Result<Parsed> parsed = Parse(b.uri, true);
    if (!parsed.ok()) {
      return InvalidArgument("external Blob base '" + b.uri + "': " + parsed.status().message());
    }
    if (b.scope != "server_safe" && b.scope != "embedded_only") {
      return InvalidArgument("external Blob base '" + b.uri + "': unknown scope '" + b.scope +
                             "' (server_safe or embedded_only)");
    }
    if (b.scope == "server_safe" && parsed->scheme == "file") {
      return InvalidArgument("external Blob base '" + b.uri +
                             "': a server-safe external Blob base may not use file://");
    }
    for (const Base& other : rules.bases_) {
      if (other.parsed.scheme == parsed->scheme && other.parsed.authority == parsed->authority &&
          (Contains(other.parsed.segments, parsed->segments) ||
           Contains(parsed->segments, other.parsed.segments))) {
        return InvalidArgument("external Blob bases '" + other.given.uri + "' and '" + b.uri +
                               "' overlap; configure one unambiguous base");
      }
    }
    rules.bases_.push_back(Base{b, std::move(*parsed)});
  }
  return rules;
}

ExternalBlobRules ExternalBlobRules::ServerSafeOnly() const {
  ExternalBlobRules out;
  for (const Base& b : bases_) {
    if (b.given.scope == "server_safe") out.bases_.push_back(b);
  }
  return out;
}

std::optional<std::string> ExternalBlobRules::Refusal(std::string_view uri) const {
  if (bases_.empty()) return std::string(kDenied);
  Result<Parsed> candidate = Parse(uri, false);
  if (!candidate.ok()) return candidate.status().message();
  for (const Base& b : bases_) {
    if (b.parsed.scheme == candidate->scheme && b.parsed.authority == candidate->authority &&
        candidate->segments.size() > b.parsed.segments.size() &&
        Contains(b.parsed.segments, candidate->segments)) {
      return std::nullopt;
    }
  }
  return std::string("URI is outside every configured external Blob base");
}

std::string ExternalBlobRefusalText(std::string_view uri, std::string_view reason) {
  return "external blob URI '" + std::string(uri) + "' is not allowed: " + std::string(reason);
}

Result<BlobText> StoredBlobFromText(std::string_view text, const ExternalBlobRules* rules) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<std::string> bytes, BlobBytesFromText(text));
  if (bytes) return BlobText{StoredManagedBlob(std::move(*bytes)), std::nullopt};
  std::optional<std::string> refusal =
      rules == nullptr ? std::optional<std::string>(std::string(kDenied)) : rules->Refusal(text);
  if (refusal) return BlobText{std::string(), ExternalBlobRefusalText(text, *refusal)};
  return BlobText{StoredExternalBlob(text), std::nullopt};
}

}  // namespace omnigraph::engine

// External Blob references (docs/design/blob.md "External Blob references"): how a Blob cell's
// stored bytes say "managed bytes" or "an external URI", and the per-graph allow rules that
// decide whether a write may store a new external URI. Values; thread-safe.
//
// Stored form of a Blob value (the bytes of its Binary cell, docs/format/fragment.md §4):
//   - bytes that do not begin with kBlobTag are managed bytes, as they are (every Blob written
//     before external references existed);
//   - kBlobTag + 'E' + URI is an external reference to URI;
//   - kBlobTag + 'M' + bytes is the managed value `bytes` (written only for managed bytes that
//     themselves begin with kBlobTag, so the two never collide);
//   - kBlobTag followed by anything else (or nothing) is a damaged value (Corruption).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace omnigraph::engine {

// The 16 bytes that open a tagged Blob value. It begins with a NUL so that a fragment whose
// Binary column's minimum begins with another byte provably holds no tagged value.
inline constexpr std::string_view kBlobTag("\0\xffOGBLOBv1\xa7<\x91^\xd2\x08", 16);
// The byte after kBlobTag: an external reference, or escaped managed bytes.
inline constexpr char kBlobTagExternal = 'E';
inline constexpr char kBlobTagManaged = 'M';
// The bytes of the tag and its kind byte.
inline constexpr uint64_t kBlobTagBytes = 17;
// The longest external URI a write admits (OmniGraph's EXTERNAL_BLOB_URI_MAX_BYTES).
inline constexpr uint64_t kExternalBlobUriBytesMax = 2048;

// The stored form of managed `bytes` (escaped only when they begin with kBlobTag).
std::string StoredManagedBlob(std::string bytes);
// The stored form of an external reference to `uri`.
std::string StoredExternalBlob(std::string_view uri);

// What a stored Blob value is: managed bytes (`payload` is them) or an external URI (`payload`
// is the URI). Corruption for a damaged tagged value.
struct StoredBlob {
  bool external = false;
  std::string_view payload;
};
Result<StoredBlob> ClassifyStoredBlob(std::string_view stored);

// One base of the allow rules: `uri` an absolute s3:// or file:/// directory, `scope`
// "server_safe" (usable by a server; s3 only) or "embedded_only".
struct ExternalBlobBase {
  std::string uri;
  std::string scope;
};

// A graph's external-Blob ingress rules: mode deny (no base; the default) or allow (bases).
// Admission compares normalized URI components, never string prefixes: a URI is admitted when
// it has the scheme and authority of a base and that base's path segments followed by at
// least one more.
class ExternalBlobRules {
 public:
  ExternalBlobRules() = default;  // deny
  // Allow rules of `bases` (none: deny). InvalidArgument for a base that is not an absolute
  // s3:// or file:/// URI without credentials, port, query, fragment or dot segments, for an
  // unknown scope, a server_safe file:// base, or two overlapping bases.
  static Result<ExternalBlobRules> Make(const std::vector<ExternalBlobBase>& bases);
  // The rules a server applies: the server_safe bases only (none left: deny).
  ExternalBlobRules ServerSafeOnly() const;

  bool allows_any() const { return !bases_.empty(); }
  // Nullopt when a write may store a reference to `uri`; otherwise why not, in OmniGraph's
  // words ("new external Blob URI ingress is denied for this graph", "URI is outside every
  // configured external Blob base", or what is wrong with the URI).
  std::optional<std::string> Refusal(std::string_view uri) const;

 private:
  struct Parsed {
    std::string scheme, authority;
    std::vector<std::string> segments;
  };
  struct Base {
    ExternalBlobBase given;
    Parsed parsed;
  };
  static Result<Parsed> Parse(std::string_view uri, bool base);
  std::vector<Base> bases_;
};

// "external blob URI '<uri>' is not allowed: <reason>" (OmniGraph's refusal).
std::string ExternalBlobRefusalText(std::string_view uri, std::string_view reason);

// The text of a Blob write: "base64:<data>" is managed bytes; any other string is an external
// URI, stored when `rules` admit it. `stored` is the stored form; `refusal` (stored empty) says
// why an external URI was refused. InvalidArgument for bad base64.
struct BlobText {
  std::string stored;
  std::optional<std::string> refusal;
};
Result<BlobText> StoredBlobFromText(std::string_view text, const ExternalBlobRules* rules);

}  // namespace omnigraph::engine

#include "cluster/ledger.h"

#include <unistd.h>

#include <filesystem>

#include "base/hash.h"
#include "base/ids.h"
#include "storage/uri.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;

bool IsUri(const std::string& s) { return s.find("://") != std::string::npos; }

std::string TrimSlash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Status LockedError(const Json& lock) {
  std::string id = lock.value("lock_id", "?");
  return Status(Kind::kConflict, Code::kPrecondition,
                "cluster_locked: the cluster state is locked by " + lock.value("holder", "?") +
                    " (operation " + lock.value("operation", "?") + ", pid " +
                    std::to_string(lock.value("pid", 0)) + ", lock id " + id +
                    "); wait for it to finish, or if no cluster operation is running: "
                    "omnigraph cluster force-unlock " +
                    id,
                kLockObject);
}

// The members of the ledger's records that readers take as typed values (docs/format/
// cluster-ledger.md): each must have that type when present. Other members are kept as read.
constexpr std::pair<const char*, Json::value_t> kResourceMembers[] = {
    {"digest", Json::value_t::string},    {"root", Json::value_t::string},
    {"file", Json::value_t::string},      {"kind", Json::value_t::string},
    {"applies_to", Json::value_t::array}, {"embedding_provider", Json::value_t::string}};
constexpr std::pair<const char*, Json::value_t> kRecordMembers[] = {
    {"status", Json::value_t::string},        {"message", Json::value_t::string},
    {"conditions", Json::value_t::array},     {"resource", Json::value_t::string},
    {"action", Json::value_t::string},        {"approved_by", Json::value_t::string},
    {"config_digest", Json::value_t::string}, {"approval_id", Json::value_t::string},
    {"state_digest", Json::value_t::string},  {"kind", Json::value_t::string}};

// "" when the members of `record` named in `members` have their types, else what is wrong.
template <size_t N>
std::string CheckMembers(const Json& record,
                         const std::pair<const char*, Json::value_t> (&members)[N]) {
  if (!record.is_object()) return "is not an object";
  for (const auto& [name, type] : members) {
    auto it = record.find(name);
    if (it != record.end() && it->type() != type) {
      return "member '" + std::string(name) + "' is not a " +
             (type == Json::value_t::string ? "string" : "list");
    }
  }
  return "";
}

// A resource id as the ledger records it: `<kind>.<name>`, `query.<graph>.<name>` with both
// parts, no part empty and no '/' (the parts name catalog blobs).
bool ValidResourceId(const std::string& id) {
  const size_t kind = id.find('.');
  if (kind == std::string::npos || kind == 0 || kind + 1 == id.size()) return false;
  if (id.find('/') != std::string::npos || id.find("..") != std::string::npos) return false;
  if (id.rfind("query.", 0) != 0) return true;
  const size_t dot = id.find('.', 6);
  return dot != std::string::npos && dot + 1 < id.size();
}

// A digest as recorded: "sha256:" and 64 lowercase hex digits (it names catalog blobs).
bool ValidDigest(const std::string& digest) {
  if (digest.size() != 7 + 64 || digest.rfind("sha256:", 0) != 0) return false;
  return digest.find_first_not_of("0123456789abcdef", 7) == std::string::npos;
}

// A graph's root as recorded (`graphs/<id>.omni`, relative to the storage root): a relative path
// of plain names. Readers join it to the storage root (ReadApplied: the server's boot), so a
// `..`, an absolute path or a URI would open a graph outside the cluster's storage.
bool ValidGraphRoot(const std::string& root) {
  if (root.empty() || root.front() == '/') return false;
  for (char c : root) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == ':') return false;
  }
  for (size_t start = 0;;) {
    const size_t end = root.find('/', start);
    const std::string_view part = std::string_view(root).substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

// Corruption naming the ledger unless every member a reader takes as typed has its type: the
// state's maps are objects of objects, a resource's digest is a digest and its applies_to
// strings, a graph's root a path under the storage root, the revision a count.
Status CheckState(const Json& j) {
  auto bad = [](const std::string& what) {
    return Status(Code::kCorruption, "the cluster state is damaged: " + what, kStateObject);
  };
  if (j.contains("state_revision") && !j["state_revision"].is_number_unsigned()) {
    return bad("state_revision is not a count");
  }
  if (!j["applied_revision"].is_object()) return bad("applied_revision is not an object");
  const Json& applied = j["applied_revision"];
  for (const char* member : {"name", "config_digest"}) {
    if (applied.contains(member) && !applied[member].is_string()) {
      return bad(std::string("applied_revision.") + member + " is not a string");
    }
  }
  if (applied.contains("resources")) {
    if (!applied["resources"].is_object())
      return bad("applied_revision.resources is not an object");
    for (const auto& [id, rec] : applied["resources"].items()) {
      const std::string where = "resource '" + id + "' ";
      if (!ValidResourceId(id)) return bad(where + "has an invalid id");
      if (std::string why = CheckMembers(rec, kResourceMembers); !why.empty())
        return bad(where + why);
      if (rec.contains("digest") && !ValidDigest(rec["digest"].get<std::string>())) {
        return bad(where + "has an invalid digest");
      }
      if (rec.contains("root") && !ValidGraphRoot(rec["root"].get<std::string>())) {
        return bad(where + "has a root outside the storage root: " + rec["root"].dump());
      }
      for (const Json& ref : rec.value("applies_to", Json::array())) {
        if (!ref.is_string()) return bad(where + "applies_to holds a non-string");
      }
    }
  }
  for (const char* map :
       {"resource_statuses", "approval_records", "recovery_records", "observations"}) {
    if (!j[map].is_object()) return bad(std::string(map) + " is not an object");
    for (const auto& [id, rec] : j[map].items()) {
      if (std::string why = CheckMembers(rec, kRecordMembers); !why.empty()) {
        return bad(std::string(map) + " '" + id + "' " + why);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::string Root::GraphRoot(const std::string& graph_id) const {
  return uri + "/graphs/" + graph_id + ".omni";
}

Result<Root> OpenRootUri(const std::string& given) {
  Root r;
  r.uri =
      IsUri(given) ? TrimSlash(given) : TrimSlash(fs::absolute(given).lexically_normal().string());
  if (r.uri.rfind("file://", 0) == 0) r.uri = r.uri.substr(7);
  OMNIGRAPH_ASSIGN_OR_RETURN(r.store, storage::OpenStore(r.uri));
  return r;
}

Result<Root> OpenRoot(const std::string& config_dir, const std::string& storage) {
  if (storage.empty()) return OpenRootUri(config_dir);
  if (IsUri(storage)) return OpenRootUri(storage);
  return OpenRootUri((fs::path(config_dir) / storage).string());
}

std::string Digest(std::string_view bytes) { return "sha256:" + Sha256Hex(bytes); }

std::string DigestHex(const std::string& digest) {
  size_t colon = digest.find(':');
  return colon == std::string::npos ? digest : digest.substr(colon + 1);
}

Json EmptyState() {
  return Json{{"version", kStateVersion},
              {"state_revision", 0},
              {"applied_revision", {{"config_digest", ""}, {"resources", Json::object()}}},
              {"resource_statuses", Json::object()},
              {"approval_records", Json::object()},
              {"recovery_records", Json::object()},
              {"observations", Json::object()}};
}

Result<StateFile> ReadState(storage::ObjectStore& store) {
  StateFile f;
  Result<storage::GetResult> got = store.Get(kStateObject);
  if (!got.ok() && got.status().kind() == Kind::kNotFound) {
    f.state = EmptyState();
    return f;
  }
  if (!got.ok()) return got.status();
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseJson(got->data, kStateObject, true));
  if (!j.is_object() || !j.contains("version") || !j["version"].is_number_integer()) {
    return Status(Code::kCorruption, "the cluster state is not a version-1 state object",
                  kStateObject);
  }
  if (j["version"].get<int64_t>() != kStateVersion) {
    return Status(
        Code::kFormatTooNew,
        "unsupported cluster state version " + j["version"].dump() + " (this build reads 1)",
        kStateObject);
  }
  Json base = EmptyState();
  for (auto it = base.begin(); it != base.end(); ++it) {
    if (!j.contains(it.key())) j[it.key()] = it.value();
  }
  OMNIGRAPH_RETURN_IF_ERROR(CheckState(j));
  if (!j["applied_revision"].contains("resources")) {
    j["applied_revision"]["resources"] = Json::object();
  }
  f.exists = true;
  f.state = std::move(j);
  f.etag = got->meta.etag;
  f.cas = Digest(got->data);
  return f;
}

Status WriteState(storage::ObjectStore& store, const StateFile& prior, const Json& next) {
  std::string bytes = next.dump(2) + "\n";
  auto conflict = [] {
    return Status(Kind::kConflict, Code::kPrecondition,
                  "state_conflict: the cluster state changed while this command ran (another "
                  "apply, refresh or import won); re-run the command",
                  kStateObject);
  };
  if (!prior.exists) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool created, store.PutIfAbsent(kStateObject, bytes));
    return created ? Status::Ok() : conflict();
  }
  Result<std::string> put = store.PutIfMatch(kStateObject, bytes, prior.etag);
  if (!put.ok() &&
      (put.status().kind() == Kind::kPrecondition || put.status().kind() == Kind::kNotFound)) {
    return conflict();
  }
  return put.status();
}

Result<Lock> AcquireLock(storage::ObjectStore& store, const std::string& operation,
                         const std::string& actor, Clock& clock, Random& random) {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = 0;
  Lock lock;
  lock.lock_id = UlidGenerator(clock, random).NextString();
  std::string holder = (actor.empty() ? std::string("unknown actor") : actor) + "@" + host;
  lock.body = Json{{"version", kLockVersion},
                   {"lock_id", lock.lock_id},
                   {"operation", operation},
                   {"holder", holder},
                   {"pid", static_cast<int64_t>(getpid())},
                   {"created_at_micros", clock.NowMicros()}};
  OMNIGRAPH_ASSIGN_OR_RETURN(bool created, store.PutIfAbsent(kLockObject, lock.body.dump(2)));
  if (created) return lock;
  Result<std::optional<Json>> held = ReadLock(store);
  if (held.ok() && held->has_value()) return LockedError(**held);
  return LockedError(Json{{"lock_id", "?"}, {"holder", "an unreadable lock"}});
}

Result<std::optional<Json>> ReadLock(storage::ObjectStore& store) {
  Result<storage::GetResult> got = store.Get(kLockObject);
  if (!got.ok() && got.status().kind() == Kind::kNotFound) return std::optional<Json>();
  if (!got.ok()) return got.status();
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseJson(got->data, kLockObject, true));
  // Every member LockedError and status show has its type (an integer version 1, a string id).
  auto typed = [&j](const char* name, bool (Json::*is)() const noexcept) {
    return !j.contains(name) || (j[name].*is)();
  };
  if (!j.is_object() || !j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int64_t>() != kLockVersion || !j.contains("lock_id") ||
      !j["lock_id"].is_string() || !typed("operation", &Json::is_string) ||
      !typed("holder", &Json::is_string) || !typed("pid", &Json::is_number_integer) ||
      !typed("created_at_micros", &Json::is_number_integer)) {
    return Status(Code::kCorruption, "the cluster lock is not a version-1 lock", kLockObject);
  }
  return std::optional<Json>(std::move(j));
}

Status ReleaseLock(storage::ObjectStore& store, const std::string& lock_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Json> held, ReadLock(store));
  if (!held || held->value("lock_id", "") != lock_id) return Status::Ok();
  return store.Delete(kLockObject);
}

Status ForceRemoveLock(storage::ObjectStore& store, const std::string& lock_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Json> held, ReadLock(store));
  if (!held) {
    return Status(Code::kNotFound, "no cluster lock is held; nothing to unlock", kLockObject);
  }
  std::string id = held->value("lock_id", "");
  if (id != lock_id) {
    return Status(Code::kInvalidArgument,
                  "lock id " + lock_id + " does not match the held lock " + id +
                      " (see omnigraph cluster status); nothing was removed",
                  kLockObject);
  }
  return store.Delete(kLockObject);
}

std::string SchemaBlob(const std::string& graph, const std::string& digest) {
  return "__cluster/resources/schema/" + graph + "/" + DigestHex(digest) + ".pg";
}

std::string QueryBlob(const std::string& graph, const std::string& name,
                      const std::string& digest) {
  return "__cluster/resources/query/" + graph + "/" + name + "/" + DigestHex(digest) + ".gq";
}

std::string PolicyBlob(const std::string& name, const std::string& digest) {
  return "__cluster/resources/policy/" + name + "/" + DigestHex(digest) + ".yaml";
}

std::string CatalogBlobOf(const std::string& id, const Json& recorded) {
  std::string digest = recorded.value("digest", "");
  if (id.rfind("query.", 0) == 0) {
    size_t a = id.find('.'), b = id.find('.', a + 1);
    return QueryBlob(id.substr(a + 1, b - a - 1), id.substr(b + 1), digest);
  }
  if (id.rfind("policy.", 0) == 0) return PolicyBlob(id.substr(7), digest);
  return "";
}

Status PutBlob(storage::ObjectStore& store, const std::string& name, std::string_view bytes) {
  OMNIGRAPH_ASSIGN_OR_RETURN(bool created, store.PutIfAbsent(name, bytes));
  if (created) return Status::Ok();
  // A blob of this name holds these bytes unless it was damaged: then the right bytes replace it.
  Result<storage::GetResult> got = store.Get(name);
  if (got.ok() && got->data == bytes) return Status::Ok();
  return store.Put(name, bytes);
}

Result<std::string> GetBlob(storage::ObjectStore& store, const std::string& name,
                            const std::string& digest) {
  Result<storage::GetResult> got = store.Get(name);
  if (!got.ok() && got.status().kind() == Kind::kNotFound) {
    return Status(Code::kNotFound,
                  "catalog_payload_missing: " + name +
                      " is missing (fix: omnigraph cluster refresh, then cluster apply)",
                  name);
  }
  if (!got.ok()) return got.status();
  if (Digest(got->data) != digest) {
    return Status(Code::kCorruption,
                  "catalog_payload_mismatch: " + name + " does not hash to " + digest +
                      " (fix: omnigraph cluster refresh, then cluster apply)",
                  name);
  }
  return std::move(got->data);
}

}  // namespace omnigraph::cluster

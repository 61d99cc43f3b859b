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
  if (!j.is_object() || j.value("version", 0) != kLockVersion || !j.contains("lock_id")) {
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

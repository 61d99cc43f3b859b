// Idempotency keys (engine/write/idempotency.h; docs/design/idempotency.md).
#include "engine/write/idempotency.h"

#include "base/hash.h"
#include "commit/names.h"
#include "commit/testing_hooks.h"

namespace omnigraph::engine {

Status ValidateIdempotencyKey(std::string_view key) {
  if (key.empty() || key.size() > kIdempotencyKeyBytesMax) {
    return InvalidArgument("an idempotency key must be 1 to " +
                           std::to_string(kIdempotencyKeyBytesMax) + " bytes; this one is " +
                           std::to_string(key.size()));
  }
  for (size_t i = 0; i < key.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    if (c < 0x21 || c > 0x7e) {
      return InvalidArgument("an idempotency key is printable ASCII without spaces; byte " +
                             std::to_string(i) + " is " + std::to_string(c));
    }
  }
  return Status::Ok();
}

std::string IdempotencyKeyName(std::string_view stream_key, std::string_view key) {
  return "_graph/" + std::string(stream_key) + "/keys/" + Sha256Hex(key) + ".json";
}

Json IdempotencyMember(const Idempotency& idempotency) {
  return Json{{"key", idempotency.key},
              {"request_sha256", idempotency.request_sha256},
              {"outcome", idempotency.outcome}};
}

const Json* RecordKeyMember(const commit::Record& record, std::string_view key) {
  auto names = [&](const Json& member) {
    if (!member.is_object()) return false;
    auto k = member.find("key");
    return k != member.end() && k->is_string() && k->get<std::string>() == key;
  };
  if (names(record.idempotency_key)) return &record.idempotency_key;
  for (const commit::BatchMember& member : record.members) {
    if (names(member.idempotency_key)) return &member.idempotency_key;
  }
  return nullptr;
}

KeyFence::KeyFence(storage::ObjectStore& store, std::string stream_key, Idempotency idempotency)
    : store_(store),
      stream_key_(std::move(stream_key)),
      idempotency_(std::move(idempotency)),
      name_(IdempotencyKeyName(stream_key_, idempotency_.key)) {}

std::string KeyFence::Encode(uint64_t seq) const {
  return Json{{"format", 1},
              {"key", idempotency_.key},
              {"request_sha256", idempotency_.request_sha256},
              {"seq", seq}}
      .dump();
}

Result<std::optional<KeyFence::KeyObject>> KeyFence::Read() {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::BoundedRead> read,
                             commit::ReadBounded(store_, name_, commit::kDocumentBytesMax));
  if (!read) return std::optional<KeyObject>();
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseJson(read->data, name_, /*as_corruption=*/true));
  auto digest = j.find("request_sha256");
  auto seq = j.find("seq");
  if (!j.is_object() || digest == j.end() || !digest->is_string() || seq == j.end() ||
      !seq->is_number_unsigned()) {
    return Status(Code::kCorruption, "an idempotency key object needs request_sha256 and seq",
                  name_);
  }
  KeyObject out{digest->get<std::string>(), seq->get<uint64_t>(), read->meta.etag};
  if (out.request_sha256 != idempotency_.request_sha256) {
    return Status(Code::kIdempotencyConflict,
                  "idempotency key '" + idempotency_.key +
                      "' was already used for a different request (request sha256 " +
                      out.request_sha256 + ", this one " + idempotency_.request_sha256 +
                      "); use a new key for a new request",
                  name_);
  }
  return std::optional<KeyObject>(std::move(out));
}

Result<std::optional<commit::Record>> KeyFence::RecordAt(uint64_t seq) {
  const std::string name = commit::RecordName(stream_key_, seq);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::BoundedRead> read,
                             commit::ReadBounded(store_, name, commit::kRecordBytesMax));
  if (!read) return std::optional<commit::Record>();
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record record, commit::DecodeRecord(read->data, name));
  return std::optional<commit::Record>(std::move(record));
}

Result<std::optional<commit::Record>> KeyFence::Published() {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<KeyObject> object, Read());
  if (!object) return std::optional<commit::Record>();
  created_ = true;  // Claim must not try to create it again.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::Record> record, RecordAt(object->seq));
  // The planted bug (test only) never finds the record.
  if (record && RecordKeyMember(*record, idempotency_.key) != nullptr &&
      !commit::TestingHooks().key_fence_ignores_record) {
    return record;
  }
  return std::optional<commit::Record>();
}

Result<FenceVerdict> KeyFence::Claim(uint64_t seq) {
  if (!created_) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool created, store_.PutIfAbsent(name_, Encode(seq)));
    created_ = true;
    if (created) return FenceVerdict::kPublish;
  }
  for (int round = 0; round < kKeyFenceRoundsMax; ++round) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<KeyObject> object, Read());
    if (!object) {
      return Status(Code::kCorruption, "the idempotency key object vanished while in use", name_);
    }
    if (object->seq == seq) return FenceVerdict::kPublish;
    if (object->seq > seq) return FenceVerdict::kStale;
    // The key names an earlier seq, which the caller's head has passed: the record there
    // either names the key (the write is done) or proves the key may move.
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::Record> record, RecordAt(object->seq));
    if (!record) {
      return Status(Code::kCorruption,
                    "the idempotency key names seq " + std::to_string(object->seq) +
                        ", below the head, but no record is there",
                    name_);
    }
    // The planted bug (test only) skips this check.
    if (RecordKeyMember(*record, idempotency_.key) != nullptr &&
        !commit::TestingHooks().key_fence_ignores_record) {
      replayed_ = std::move(record);
      return FenceVerdict::kReplay;
    }
    Result<std::string> moved = store_.PutIfMatch(name_, Encode(seq), object->etag);
    if (moved.ok()) return FenceVerdict::kPublish;
    if (moved.status().kind() != Kind::kPrecondition) return moved.status();
  }
  return Status(Code::kRetriesExhausted,
                "the idempotency key object kept changing under this write", name_);
}

}  // namespace omnigraph::engine

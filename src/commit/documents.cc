// The small commit documents: checkpoint, hint, stream metadata, name generation and storage
// stamp (docs/format/commit-documents.md §4–§8). The record is in documents_record.cc; the
// codec helpers both share are in documents_internal.h.
#include "commit/documents.h"
#include "commit/documents_internal.h"

namespace omnigraph::commit {

// The codec helpers this file shares with its sibling (documents_internal.h).
using namespace documents_internal;

Result<std::string> EncodeCheckpoint(const Checkpoint& c) {
  std::string out;
  out.reserve(256 + 300 * c.tables.size());
  JsonWriter w(&out);
  MemberWriter m(w, c.extra);
  m.Key("format").Uint(kDocumentFormat);
  m.Key("head_commit_id").String(c.head_commit_id);
  m.Key("head_generation").Uint(c.head_generation);
  WriteSchema(m.Key("schema"), c.schema);
  m.Key("seq").Uint(c.seq);
  m.Key("stream").String(c.stream);
  m.Key("tables").BeginArray();
  for (const CheckpointTable& t : c.tables) {
    MemberWriter tm(w, t.extra);
    WritePin(tm.Key("pin"), t.pin);
    tm.Key("pin_seq").Uint(t.pin_seq);
    WriteRegistration(tm.Key("registration"), t.registration);
    tm.End();
  }
  w.EndArray();
  m.End();
  if (!w.ok()) {
    return InvalidArgument("checkpoint " + std::to_string(c.seq) + " of stream '" + c.stream +
                           "' holds a string that is not valid UTF-8");
  }
  return out;
}

Result<Checkpoint> DecodeCheckpoint(std::string_view bytes, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseDocument(bytes, object, "checkpoint"));
  Reader r(j, object, "checkpoint");
  Checkpoint c;
  c.stream = r.Str("stream");
  c.seq = r.U64("seq");
  c.head_commit_id = r.Str("head_commit_id");
  c.head_generation = r.U64("head_generation");
  if (const Json* s = r.Obj("schema", false)) c.schema = SchemaFrom(*s, r);
  for (const Json& item : *r.Arr("tables")) {
    Reader tr(item, object, "checkpoint table");
    CheckpointTable t;
    if (const Json* g = tr.Obj("registration", false)) t.registration = RegistrationFrom(*g, tr);
    if (const Json* p = tr.Obj("pin", false)) t.pin = PinFrom(*p, tr);
    t.pin_seq = tr.U64("pin_seq");
    t.extra = tr.Extra({"registration", "pin", "pin_seq"});
    if (!tr.status().ok()) r.Fail("has a malformed table: " + tr.status().message());
    c.tables.push_back(std::move(t));
  }
  c.extra =
      r.Extra({"format", "stream", "seq", "head_commit_id", "head_generation", "schema", "tables"});
  OMNIGRAPH_RETURN_IF_ERROR(r.status());
  return c;
}

std::string EncodeHint(const Hint& h) {
  Json known = {{"format", kDocumentFormat}, {"seq", h.seq}};
  if (h.schema) {
    known["schema"] = WithExtra(h.schema->extra, {{"content_hash", h.schema->content_hash},
                                                  {"identity_domain", h.schema->identity_domain},
                                                  {"identity_version", h.schema->identity_version},
                                                  {"ir_hash", h.schema->ir_hash}});
  }
  return CanonicalJson(WithExtra(h.extra, std::move(known)));
}

Result<Hint> DecodeHint(std::string_view bytes, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseDocument(bytes, object, "hint"));
  Reader r(j, object, "hint");
  Hint h;
  h.seq = r.U64("seq");
  h.extra = r.Extra({"format", "seq", "schema"});
  OMNIGRAPH_RETURN_IF_ERROR(r.status());
  // The schema is a guess a reader may act on early: a malformed one is dropped, not an error.
  if (j.contains("schema") && j["schema"].is_object()) {
    Reader scratch(j, object, "hint");
    SchemaRef schema = SchemaFrom(j["schema"], scratch);
    if (scratch.status().ok()) h.schema = std::move(schema);
  }
  return h;
}

std::string EncodeStreamMetadata(const StreamMetadata& m) {
  Json retired = nullptr;
  if (m.retired) retired = {{"at_seq", m.retired->at_seq}, {"at", m.retired->at}};
  return CanonicalJson(
      WithExtra(m.extra, {{"format", kDocumentFormat},
                          {"key", m.key},
                          {"branch", m.branch},
                          {"native_name", m.native_name},
                          {"parent_stream", OptJson(m.parent_stream)},
                          {"fork_seq", m.fork_seq ? Json(*m.fork_seq) : Json(nullptr)},
                          {"fork_commit_id", OptJson(m.fork_commit_id)},
                          {"creator", OptJson(m.creator)},
                          {"created_at", m.created_at},
                          {"retired", retired}}));
}

Result<StreamMetadata> DecodeStreamMetadata(std::string_view bytes, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseDocument(bytes, object, "stream metadata"));
  Reader r(j, object, "stream metadata");
  StreamMetadata m;
  m.key = r.Str("key");
  m.branch = r.Str("branch");
  m.native_name = r.Str("native_name");
  m.parent_stream = r.OptStr("parent_stream");
  m.fork_seq = r.OptU64("fork_seq");
  m.fork_commit_id = r.OptStr("fork_commit_id");
  m.creator = r.OptStr("creator");
  m.created_at = r.I64("created_at");
  if (const Json* ret = r.Obj("retired", true)) {
    Reader rr(*ret, object, "retired marker");
    m.retired = Retired{rr.U64("at_seq"), rr.I64("at")};
    if (!rr.status().ok()) r.Fail("has a malformed retired marker: " + rr.status().message());
  }
  m.extra = r.Extra({"format", "key", "branch", "native_name", "parent_stream", "fork_seq",
                     "fork_commit_id", "creator", "created_at", "retired"});
  OMNIGRAPH_RETURN_IF_ERROR(r.status());
  return m;
}

std::string EncodeNameGeneration(const NameGeneration& g) {
  return CanonicalJson(WithExtra(
      g.extra,
      {{"format", kDocumentFormat}, {"branch", g.branch}, {"key", g.key}, {"gen", g.gen}}));
}

Result<NameGeneration> DecodeNameGeneration(std::string_view bytes, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseDocument(bytes, object, "name generation"));
  Reader r(j, object, "name generation");
  NameGeneration g;
  g.branch = r.Str("branch");
  g.key = r.Str("key");
  g.gen = r.U64("gen");
  g.extra = r.Extra({"format", "branch", "key", "gen"});
  OMNIGRAPH_RETURN_IF_ERROR(r.status());
  return g;
}

std::string EncodeStorageStamp(const StorageStamp& s) {
  return CanonicalJson(WithExtra(s.extra, {{"format", kDocumentFormat},
                                           {"kind", s.kind},
                                           {"storage_stamp", s.storage_stamp},
                                           {"graph_id", s.graph_id},
                                           {"checkpoint_interval", s.checkpoint_interval},
                                           {"created_at", s.created_at}}));
}

Result<StorageStamp> DecodeStorageStamp(std::string_view bytes, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseDocument(bytes, object, "storage stamp"));
  Reader r(j, object, "storage stamp");
  StorageStamp s;
  s.kind = r.Str("kind");
  s.storage_stamp = r.U64("storage_stamp");
  s.graph_id = r.Str("graph_id");
  s.checkpoint_interval = r.U64("checkpoint_interval");
  s.created_at = r.I64("created_at");
  s.extra =
      r.Extra({"format", "kind", "storage_stamp", "graph_id", "checkpoint_interval", "created_at"});
  OMNIGRAPH_RETURN_IF_ERROR(r.status());
  if (s.checkpoint_interval == 0) {
    return Status(Code::kCorruption, "storage stamp has checkpoint_interval 0",
                  std::string(object));
  }
  return s;
}

Result<std::optional<BoundedRead>> ReadBounded(storage::ObjectStore& store, std::string_view name,
                                               uint64_t limit_bytes) {
  Result<storage::GetResult> got = store.Get(name, storage::ByteRange{0, limit_bytes + 1});
  if (!got.ok()) {
    if (got.status().kind() == Kind::kNotFound) return std::optional<BoundedRead>();
    return got.status().WithObject(name);
  }
  if (got->meta.size_bytes > limit_bytes) {
    return Status(Code::kCorruption,
                  "object is " + std::to_string(got->meta.size_bytes) +
                      " bytes, more than the limit of " + std::to_string(limit_bytes),
                  std::string(name));
  }
  return std::optional<BoundedRead>(BoundedRead{std::move(got->data), std::move(got->meta)});
}

}  // namespace omnigraph::commit

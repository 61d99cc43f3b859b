#include "commit/documents.h"

#include <initializer_list>

#include "base/json_writer.h"

namespace omnigraph::commit {

namespace {

// Reads typed members of one JSON object, remembering the first problem as kCorruption.
class Reader {
 public:
  Reader(const Json& json, std::string_view object, std::string what)
      : json_(json), object_(object), what_(std::move(what)) {
    if (!json_.is_object()) Fail("is not a JSON object");
  }

  uint64_t U64(const char* key) {
    const Json* v = Find(key);
    if (v == nullptr) return 0;
    if (!v->is_number_unsigned()) {
      // A non-negative value in a signed slot is still fine.
      if (v->is_number_integer() && v->get<int64_t>() >= 0) return v->get<uint64_t>();
      Fail(std::string("member '") + key + "' is not an unsigned integer");
      return 0;
    }
    return v->get<uint64_t>();
  }
  int64_t I64(const char* key) {
    const Json* v = Find(key);
    if (v == nullptr) return 0;
    if (!v->is_number_integer() ||
        (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
      Fail(std::string("member '") + key + "' is not an integer");
      return 0;
    }
    return v->get<int64_t>();
  }
  std::string Str(const char* key) {
    const Json* v = Find(key);
    if (v == nullptr) return {};
    if (!v->is_string()) {
      Fail(std::string("member '") + key + "' is not a string");
      return {};
    }
    return v->get<std::string>();
  }
  // Absent or null → nullopt.
  std::optional<std::string> OptStr(const char* key) {
    auto it = json_.find(key);
    if (!json_.is_object() || it == json_.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) {
      Fail(std::string("member '") + key + "' is not a string or null");
      return std::nullopt;
    }
    return it->get<std::string>();
  }
  std::optional<uint64_t> OptU64(const char* key) {
    auto it = json_.find(key);
    if (!json_.is_object() || it == json_.end() || it->is_null()) return std::nullopt;
    return U64(key);
  }
  // The member if it is an object, or null if absent/null and `nullable`.
  const Json* Obj(const char* key, bool nullable) {
    auto it = json_.find(key);
    if (!json_.is_object() || it == json_.end() || it->is_null()) {
      if (!nullable) Fail(std::string("member '") + key + "' is missing");
      return nullptr;
    }
    if (!it->is_object()) {
      Fail(std::string("member '") + key + "' is not an object");
      return nullptr;
    }
    return &*it;
  }
  // The member if it is an array; an absent member reads as empty.
  const Json* Arr(const char* key) {
    static const Json* empty = new Json(Json::array());
    auto it = json_.find(key);
    if (!json_.is_object() || it == json_.end()) return empty;
    if (!it->is_array()) {
      Fail(std::string("member '") + key + "' is not an array");
      return empty;
    }
    return &*it;
  }
  Json Extra(std::initializer_list<const char*> known) const {
    Json extra = Json::object();
    if (!json_.is_object()) return extra;
    for (auto it = json_.begin(); it != json_.end(); ++it) {
      bool is_known = false;
      for (const char* k : known) is_known = is_known || it.key() == k;
      if (!is_known) extra[it.key()] = it.value();
    }
    return extra;
  }
  void Fail(const std::string& why) {
    if (status_.ok()) status_ = Status(Code::kCorruption, what_ + " " + why, std::string(object_));
  }
  Status status() const { return status_; }
  std::string_view object() const { return object_; }

 private:
  const Json* Find(const char* key) {
    if (!json_.is_object()) return nullptr;
    auto it = json_.find(key);
    if (it == json_.end()) {
      Fail(std::string("member '") + key + "' is missing");
      return nullptr;
    }
    return &*it;
  }

  const Json& json_;
  std::string_view object_;
  std::string what_;
  Status status_;
};

// Parses bytes and checks `format` before anything else is interpreted.
Result<Json> ParseDocument(std::string_view bytes, std::string_view object, std::string_view what) {
  Result<Json> parsed = ParseJson(bytes, object, /*as_corruption=*/true);
  if (!parsed.ok()) return parsed.status().WithContext(what);
  Json json = std::move(*parsed);
  if (!json.is_object()) {
    return Status(Code::kCorruption, std::string(what) + " is not a JSON object",
                  std::string(object));
  }
  auto it = json.find("format");
  if (it == json.end() || !it->is_number_unsigned()) {
    return Status(Code::kCorruption, std::string(what) + " has no unsigned 'format' member",
                  std::string(object));
  }
  if (it->get<uint64_t>() == 0) {
    return Status(Code::kCorruption, std::string(what) + " has format 0; formats start at 1",
                  std::string(object));
  }
  if (it->get<uint64_t>() > kDocumentFormat) {
    return Status(Code::kFormatTooNew,
                  std::string(what) + " has format " + std::to_string(it->get<uint64_t>()) +
                      "; this binary reads format " + std::to_string(kDocumentFormat) +
                      " (upgrade OmniGraph)",
                  std::string(object));
  }
  return json;
}

Json WithExtra(const Json& extra, Json known) {
  Json out = extra.is_object() ? extra : Json::object();
  for (auto it = known.begin(); it != known.end(); ++it) out[it.key()] = std::move(it.value());
  return out;
}

Json OptJson(const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); }

SchemaRef SchemaFrom(const Json& j, Reader& parent) {
  Reader r(j, parent.object(), "schema");
  SchemaRef s;
  s.identity_domain = r.Str("identity_domain");
  s.ir_hash = r.Str("ir_hash");
  s.identity_version = r.U64("identity_version");
  s.content_hash = r.Str("content_hash");
  s.extra = r.Extra({"identity_domain", "ir_hash", "identity_version", "content_hash"});
  if (!r.status().ok()) parent.Fail("has a malformed schema: " + r.status().message());
  return s;
}

TablePin PinFrom(const Json& j, Reader& parent) {
  Reader r(j, parent.object(), "pin");
  TablePin p;
  p.stable_table_id = r.U64("stable_table_id");
  p.incarnation = r.U64("incarnation");
  p.table_key = r.Str("table_key");
  p.target_version = r.U64("target_version");
  p.staged_version = r.U64("staged_version");
  p.transaction_uuid = r.Str("transaction_uuid");
  p.entity_count = r.U64("entity_count");
  p.extra = r.Extra({"stable_table_id", "incarnation", "table_key", "target_version",
                     "staged_version", "transaction_uuid", "entity_count"});
  if (!r.status().ok()) parent.Fail("has a malformed pin: " + r.status().message());
  return p;
}

Registration RegistrationFrom(const Json& j, Reader& parent) {
  Reader r(j, parent.object(), "registration");
  Registration g;
  g.stable_table_id = r.U64("stable_table_id");
  g.incarnation = r.U64("incarnation");
  g.table_key = r.Str("table_key");
  g.kind = r.Str("kind");
  g.extra = r.Extra({"stable_table_id", "incarnation", "table_key", "kind"});
  if (r.status().ok() && g.kind != "node" && g.kind != "edge") {
    r.Fail("kind '" + g.kind + "' is neither node nor edge");
  }
  if (!r.status().ok()) parent.Fail("has a malformed registration: " + r.status().message());
  return g;
}

Tombstone TombstoneFrom(const Json& j, Reader& parent) {
  Reader r(j, parent.object(), "tombstone");
  Tombstone t;
  t.stable_table_id = r.U64("stable_table_id");
  t.incarnation = r.U64("incarnation");
  t.table_key = r.Str("table_key");
  t.extra = r.Extra({"stable_table_id", "incarnation", "table_key"});
  if (!r.status().ok()) parent.Fail("has a malformed tombstone: " + r.status().message());
  return t;
}

Rename RenameFrom(const Json& j, Reader& parent) {
  Reader r(j, parent.object(), "rename");
  Rename n;
  n.stable_table_id = r.U64("stable_table_id");
  n.incarnation = r.U64("incarnation");
  n.from = r.Str("from");
  n.to = r.Str("to");
  n.extra = r.Extra({"stable_table_id", "incarnation", "from", "to"});
  if (!r.status().ok()) parent.Fail("has a malformed rename: " + r.status().message());
  return n;
}

template <typename T, typename F>
std::vector<T> ListFrom(const Json* arr, Reader& parent, F from) {
  std::vector<T> out;
  out.reserve(arr->size());
  for (const Json& item : *arr) out.push_back(from(item, parent));
  return out;
}

// Writes one JSON object's members in sorted key order: the caller names its known members in
// sorted order, and the object's unknown members (kept from decoding, so a newer writer's fields
// survive a rewrite) are interleaved where they sort. Unknown names never equal known ones (the
// decoder excludes them), and nlohmann objects iterate in the same byte order.
class MemberWriter {
 public:
  MemberWriter(JsonWriter& w, const Json& extra)
      : w_(w), extra_(extra.is_object() && !extra.empty() ? &extra : nullptr) {
    if (extra_) next_ = extra_->begin();
    w_.BeginObject();
  }
  // Starts the known member `key`; the caller writes its value next.
  JsonWriter& Key(std::string_view key) {
    WriteExtrasBefore(key);
    w_.Key(key);
    return w_;
  }
  void OptString(std::string_view key, const std::optional<std::string>& v) {
    if (v) {
      Key(key).String(*v);
    } else {
      Key(key).Null();
    }
  }
  void End() {
    WriteExtrasBefore(std::nullopt);
    w_.EndObject();
  }

 private:
  void WriteExtrasBefore(std::optional<std::string_view> key) {
    while (extra_ && next_ != extra_->end() && (!key || std::string_view(next_.key()) < *key)) {
      w_.Key(next_.key());
      w_.Value(next_.value());
      ++next_;
    }
  }

  JsonWriter& w_;
  const Json* extra_;
  Json::const_iterator next_;
};

void WriteLineage(JsonWriter& w, const Lineage& l) {
  MemberWriter m(w, l.extra);
  m.Key("kind").String(l.kind);
  m.Key("merged_parent_commit_id").String(l.merged_parent_commit_id);
  m.Key("source_seq").Uint(l.source_seq);
  m.Key("source_stream").String(l.source_stream);
  m.End();
}

void WritePin(JsonWriter& w, const TablePin& p) {
  MemberWriter m(w, p.extra);
  m.Key("entity_count").Uint(p.entity_count);
  m.Key("incarnation").Uint(p.incarnation);
  m.Key("stable_table_id").Uint(p.stable_table_id);
  m.Key("staged_version").Uint(p.staged_version);
  m.Key("table_key").String(p.table_key);
  m.Key("target_version").Uint(p.target_version);
  m.Key("transaction_uuid").String(p.transaction_uuid);
  m.End();
}

void WritePins(JsonWriter& w, const std::vector<TablePin>& pins) {
  w.BeginArray();
  for (const TablePin& p : pins) WritePin(w, p);
  w.EndArray();
}

void WriteRegistration(JsonWriter& w, const Registration& g) {
  MemberWriter m(w, g.extra);
  m.Key("incarnation").Uint(g.incarnation);
  m.Key("kind").String(g.kind);
  m.Key("stable_table_id").Uint(g.stable_table_id);
  m.Key("table_key").String(g.table_key);
  m.End();
}

void WriteRegistrations(JsonWriter& w, const std::vector<Registration>& registrations) {
  w.BeginArray();
  for (const Registration& g : registrations) WriteRegistration(w, g);
  w.EndArray();
}

void WriteRenames(JsonWriter& w, const std::vector<Rename>& renames) {
  w.BeginArray();
  for (const Rename& n : renames) {
    MemberWriter m(w, n.extra);
    m.Key("from").String(n.from);
    m.Key("incarnation").Uint(n.incarnation);
    m.Key("stable_table_id").Uint(n.stable_table_id);
    m.Key("to").String(n.to);
    m.End();
  }
  w.EndArray();
}

void WriteSchema(JsonWriter& w, const SchemaRef& s) {
  MemberWriter m(w, s.extra);
  m.Key("content_hash").String(s.content_hash);
  m.Key("identity_domain").String(s.identity_domain);
  m.Key("identity_version").Uint(s.identity_version);
  m.Key("ir_hash").String(s.ir_hash);
  m.End();
}

void WriteTombstones(JsonWriter& w, const std::vector<Tombstone>& tombstones) {
  w.BeginArray();
  for (const Tombstone& t : tombstones) {
    MemberWriter m(w, t.extra);
    m.Key("incarnation").Uint(t.incarnation);
    m.Key("stable_table_id").Uint(t.stable_table_id);
    m.Key("table_key").String(t.table_key);
    m.End();
  }
  w.EndArray();
}

}  // namespace

namespace {

Json IdsJson(const std::vector<std::string>& ids) {
  Json arr = Json::array();
  for (const std::string& id : ids) arr.push_back(id);
  return arr;
}

// Reads an id list that must be strictly ascending (each id once).
std::vector<std::string> IdsFrom(Reader& r, const char* key) {
  std::vector<std::string> out;
  for (const Json& id : *r.Arr(key)) {
    if (!id.is_string()) {
      r.Fail(std::string("member '") + key + "' holds a non-string id");
      return {};
    }
    if (!out.empty() && !(out.back() < id.get<std::string>())) {
      r.Fail(std::string("member '") + key + "' is not strictly ascending");
      return {};
    }
    out.push_back(id.get<std::string>());
  }
  return out;
}

TableChangeSet TableChangeSetFrom(const Json& j, Reader& parent, bool with_counts) {
  Reader r(j, parent.object(), "change set table");
  TableChangeSet t;
  t.stable_table_id = r.U64("stable_table_id");
  t.incarnation = r.U64("incarnation");
  if (with_counts) {
    t.table_key = r.Str("table_key");
    t.inserted_count = r.U64("inserted_count");
    t.updated_count = r.U64("updated_count");
    t.deleted_count = r.U64("deleted_count");
  }
  t.inserted = IdsFrom(r, "inserted");
  t.updated = IdsFrom(r, "updated");
  t.deleted = IdsFrom(r, "deleted");
  t.extra = r.Extra({"stable_table_id", "incarnation", "table_key", "inserted_count",
                     "updated_count", "deleted_count", "inserted", "updated", "deleted"});
  if (!r.status().ok()) parent.Fail("has a malformed change set: " + r.status().message());
  return t;
}

ChangeSet ChangeSetFrom(const Json& j, Reader& parent) {
  Reader r(j, parent.object(), "change set");
  ChangeSet c;
  if (auto it = j.find("schema_boundary"); it != j.end() && !it->is_boolean()) {
    r.Fail("member 'schema_boundary' is not a boolean");
  } else if (it != j.end()) {
    c.schema_boundary = it->get<bool>();
  }
  for (const Json& t : *r.Arr("tables")) c.tables.push_back(TableChangeSetFrom(t, r, true));
  if (const Json* d = r.Obj("delta", true)) {
    Reader dr(*d, parent.object(), "change set delta");
    c.delta = ChangeSetDelta{dr.Str("name"), dr.Str("sha256"), dr.U64("size_bytes")};
    if (!dr.status().ok()) r.Fail(dr.status().message());
  }
  for (const TableChangeSet& t : c.tables) {
    const bool listed = t.inserted.size() == t.inserted_count &&
                        t.updated.size() == t.updated_count && t.deleted.size() == t.deleted_count;
    const bool empty = t.inserted.empty() && t.updated.empty() && t.deleted.empty();
    if (c.delta ? !empty : !listed) {
      r.Fail("table '" + t.table_key + "' has id lists that do not match its counts");
    }
  }
  c.extra = r.Extra({"schema_boundary", "tables", "delta"});
  if (!r.status().ok()) parent.Fail(r.status().message());
  return c;
}

}  // namespace

Json ChangeSetJson(const ChangeSet& c) {
  Json tables = Json::array();
  for (const TableChangeSet& t : c.tables) {
    tables.push_back(WithExtra(t.extra, {{"stable_table_id", t.stable_table_id},
                                         {"incarnation", t.incarnation},
                                         {"table_key", t.table_key},
                                         {"inserted_count", t.inserted_count},
                                         {"updated_count", t.updated_count},
                                         {"deleted_count", t.deleted_count},
                                         {"inserted", IdsJson(t.inserted)},
                                         {"updated", IdsJson(t.updated)},
                                         {"deleted", IdsJson(t.deleted)}}));
  }
  Json delta = nullptr;
  if (c.delta) {
    delta = Json{
        {"name", c.delta->name}, {"sha256", c.delta->sha256}, {"size_bytes", c.delta->size_bytes}};
  }
  return WithExtra(c.extra,
                   {{"schema_boundary", c.schema_boundary}, {"tables", tables}, {"delta", delta}});
}

std::string EncodeChangeSetDelta(const std::vector<TableChangeSet>& tables) {
  Json arr = Json::array();
  for (const TableChangeSet& t : tables) {
    arr.push_back(Json{{"stable_table_id", t.stable_table_id},
                       {"incarnation", t.incarnation},
                       {"inserted", IdsJson(t.inserted)},
                       {"updated", IdsJson(t.updated)},
                       {"deleted", IdsJson(t.deleted)}});
  }
  return CanonicalJson(Json{{"format", kDocumentFormat}, {"tables", arr}});
}

Result<std::vector<TableChangeSet>> DecodeChangeSetDelta(std::string_view bytes,
                                                         std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseDocument(bytes, object, "change set delta"));
  Reader r(j, object, "change set delta");
  std::vector<TableChangeSet> out;
  for (const Json& t : *r.Arr("tables")) out.push_back(TableChangeSetFrom(t, r, false));
  OMNIGRAPH_RETURN_IF_ERROR(r.status());
  return out;
}

// The record's canonical bytes, written directly in sorted key order (building an nlohmann tree
// first was most of a publish's CPU time), unknown members included where they sort.
Result<std::string> EncodeRecord(const Record& r) {
  std::string out;
  out.reserve(512 + 200 * r.pins.size());
  JsonWriter w(&out);
  MemberWriter m(w, r.extra);
  m.OptString("actor", r.actor);
  m.OptString("branch", r.branch);
  if (r.change_set) m.Key("change_set").Value(ChangeSetJson(*r.change_set));
  m.Key("commit_id").String(r.commit_id);
  m.Key("created_at").Int(r.created_at);
  m.Key("format").Uint(kDocumentFormat);
  m.Key("generation").Uint(r.generation);
  m.Key("idempotency_key").Value(r.idempotency_key);
  m.Key("kind").String(r.kind == RecordKind::kCommit ? "commit" : "retire");
  if (r.lineage) {
    WriteLineage(m.Key("lineage"), *r.lineage);
  } else {
    m.Key("lineage").Null();
  }
  if (!r.members.empty()) {
    Json members = Json::array();
    for (const BatchMember& b : r.members) {
      Json one{{"counts", b.counts}, {"idempotency_key", b.idempotency_key}};
      if (b.actor) one["actor"] = *b.actor;
      members.push_back(std::move(one));
    }
    m.Key("members").Value(members);
  }
  m.OptString("parent_commit_id", r.parent_commit_id);
  WritePins(m.Key("pins"), r.pins);
  WriteRegistrations(m.Key("registrations"), r.registrations);
  WriteRenames(m.Key("renames"), r.renames);
  WriteSchema(m.Key("schema"), r.schema);
  m.Key("seq").Uint(r.seq);
  m.Key("stream").String(r.stream);
  if (r.summary) m.Key("summary").String(*r.summary);
  WriteTombstones(m.Key("tombstones"), r.tombstones);
  m.End();
  if (!w.ok()) {
    return InvalidArgument("record " + std::to_string(r.seq) + " of stream '" + r.stream +
                           "' holds a string that is not valid UTF-8");
  }
  return out;
}

Result<Record> DecodeRecord(std::string_view bytes, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseDocument(bytes, object, "record"));
  Reader r(j, object, "record");
  Record rec;
  std::string kind = r.Str("kind");
  if (kind == "commit") {
    rec.kind = RecordKind::kCommit;
  } else if (kind == "retire") {
    rec.kind = RecordKind::kRetire;
  } else if (r.status().ok()) {
    r.Fail("kind '" + kind + "' is neither commit nor retire");
  }
  rec.seq = r.U64("seq");
  rec.commit_id = r.Str("commit_id");
  rec.parent_commit_id = r.OptStr("parent_commit_id");
  rec.generation = r.U64("generation");
  rec.stream = r.Str("stream");
  rec.branch = r.OptStr("branch");
  rec.actor = r.OptStr("actor");
  rec.created_at = r.I64("created_at");
  if (const Json* s = r.Obj("schema", false)) rec.schema = SchemaFrom(*s, r);
  rec.pins = ListFrom<TablePin>(r.Arr("pins"), r, PinFrom);
  rec.registrations = ListFrom<Registration>(r.Arr("registrations"), r, RegistrationFrom);
  rec.tombstones = ListFrom<Tombstone>(r.Arr("tombstones"), r, TombstoneFrom);
  rec.renames = ListFrom<Rename>(r.Arr("renames"), r, RenameFrom);
  if (const Json* l = r.Obj("lineage", true)) {
    Reader lr(*l, object, "lineage");
    Lineage lineage;
    lineage.kind = lr.Str("kind");
    lineage.source_stream = lr.Str("source_stream");
    lineage.source_seq = lr.U64("source_seq");
    lineage.merged_parent_commit_id = lr.Str("merged_parent_commit_id");
    lineage.extra = lr.Extra({"kind", "source_stream", "source_seq", "merged_parent_commit_id"});
    if (!lr.status().ok()) r.Fail("has a malformed lineage: " + lr.status().message());
    rec.lineage = std::move(lineage);
  }
  auto key = j.find("idempotency_key");
  if (key != j.end()) rec.idempotency_key = *key;
  if (auto members = j.find("members"); members != j.end()) {
    if (!members->is_array()) r.Fail("has members that are not an array");
    for (const Json& one : members->is_array() ? *members : Json::array()) {
      auto actor = one.is_object() ? one.find("actor") : one.end();
      auto counts = one.is_object() ? one.find("counts") : one.end();
      if (!one.is_object() || counts == one.end() || !counts->is_object() ||
          (actor != one.end() && !actor->is_string())) {
        r.Fail("has a member without counts or with a non-string actor");
        break;
      }
      BatchMember b;
      if (actor != one.end()) b.actor = actor->get<std::string>();
      b.idempotency_key = one.value("idempotency_key", Json(nullptr));
      b.counts = *counts;
      rec.members.push_back(std::move(b));
    }
  }
  if (const Json* c = r.Obj("change_set", true)) rec.change_set = ChangeSetFrom(*c, r);
  rec.summary = r.OptStr("summary");
  rec.extra = r.Extra(
      {"format",        "kind",       "seq",     "commit_id",  "parent_commit_id", "generation",
       "stream",        "branch",     "actor",   "created_at", "schema",           "pins",
       "registrations", "tombstones", "renames", "lineage",    "idempotency_key",  "members",
       "change_set",    "summary"});
  OMNIGRAPH_RETURN_IF_ERROR(r.status());
  return rec;
}

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

// The graph commit record and its change set (docs/format/commit-documents.md §2, §3).
#include "commit/documents.h"
#include "commit/documents_internal.h"

namespace omnigraph::commit {

// The codec helpers this file shares with its sibling (documents_internal.h).
using namespace documents_internal;

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

}  // namespace omnigraph::commit

// The JSON codec pieces shared by the commit documents' encoders and decoders (documents.cc: the
// checkpoint, hint, stream metadata, name generation and storage stamp; documents_record.cc:
// the record and its change set). Internal to the commit layer: docs/format/commit-documents.md
// is the contract; these are the helpers that read and write its members.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "base/json_writer.h"
#include "commit/documents.h"

namespace omnigraph::commit::documents_internal {

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
inline Result<Json> ParseDocument(std::string_view bytes, std::string_view object,
                                  std::string_view what) {
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

inline Json WithExtra(const Json& extra, Json known) {
  Json out = extra.is_object() ? extra : Json::object();
  for (auto it = known.begin(); it != known.end(); ++it) out[it.key()] = std::move(it.value());
  return out;
}

inline Json OptJson(const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); }

inline SchemaRef SchemaFrom(const Json& j, Reader& parent) {
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

inline TablePin PinFrom(const Json& j, Reader& parent) {
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

inline Registration RegistrationFrom(const Json& j, Reader& parent) {
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

inline Tombstone TombstoneFrom(const Json& j, Reader& parent) {
  Reader r(j, parent.object(), "tombstone");
  Tombstone t;
  t.stable_table_id = r.U64("stable_table_id");
  t.incarnation = r.U64("incarnation");
  t.table_key = r.Str("table_key");
  t.extra = r.Extra({"stable_table_id", "incarnation", "table_key"});
  if (!r.status().ok()) parent.Fail("has a malformed tombstone: " + r.status().message());
  return t;
}

inline Rename RenameFrom(const Json& j, Reader& parent) {
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
inline std::vector<T> ListFrom(const Json* arr, Reader& parent, F from) {
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

inline void WriteLineage(JsonWriter& w, const Lineage& l) {
  MemberWriter m(w, l.extra);
  m.Key("kind").String(l.kind);
  m.Key("merged_parent_commit_id").String(l.merged_parent_commit_id);
  m.Key("source_seq").Uint(l.source_seq);
  m.Key("source_stream").String(l.source_stream);
  m.End();
}

inline void WritePin(JsonWriter& w, const TablePin& p) {
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

inline void WritePins(JsonWriter& w, const std::vector<TablePin>& pins) {
  w.BeginArray();
  for (const TablePin& p : pins) WritePin(w, p);
  w.EndArray();
}

inline void WriteRegistration(JsonWriter& w, const Registration& g) {
  MemberWriter m(w, g.extra);
  m.Key("incarnation").Uint(g.incarnation);
  m.Key("kind").String(g.kind);
  m.Key("stable_table_id").Uint(g.stable_table_id);
  m.Key("table_key").String(g.table_key);
  m.End();
}

inline void WriteRegistrations(JsonWriter& w, const std::vector<Registration>& registrations) {
  w.BeginArray();
  for (const Registration& g : registrations) WriteRegistration(w, g);
  w.EndArray();
}

inline void WriteRenames(JsonWriter& w, const std::vector<Rename>& renames) {
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

inline void WriteSchema(JsonWriter& w, const SchemaRef& s) {
  MemberWriter m(w, s.extra);
  m.Key("content_hash").String(s.content_hash);
  m.Key("identity_domain").String(s.identity_domain);
  m.Key("identity_version").Uint(s.identity_version);
  m.Key("ir_hash").String(s.ir_hash);
  m.End();
}

inline void WriteTombstones(JsonWriter& w, const std::vector<Tombstone>& tombstones) {
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

}  // namespace omnigraph::commit::documents_internal

#include "table/table_manifest.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>

#include "table/fragment_format.h"
#include "table/table_manifest_internal.h"

namespace omnigraph::table {

namespace {

constexpr std::string_view kOperationNames[] = {"create", "append",    "upsert",
                                                "delete", "overwrite", "merge"};

// Reads the members of one JSON object, reporting the first problem as Corruption naming the
// object and the member.
class Reader {
 public:
  Reader(const Json& json, std::string_view object, std::string where)
      : json_(json), object_(object), where_(std::move(where)) {}

  const Json* Member(std::string_view key, bool optional = false) {
    auto it = json_.find(key);
    if (it == json_.end() || (optional && it->is_null())) {
      if (!optional) Fail(std::string(key) + " is missing");
      return nullptr;
    }
    return &*it;
  }
  uint64_t U64(std::string_view key) {
    const Json* v = Member(key);
    if (v == nullptr) return 0;
    if (!v->is_number_unsigned()) {
      Fail(std::string(key) + " must be an unsigned integer");
      return 0;
    }
    return v->get<uint64_t>();
  }
  int64_t I64(std::string_view key) {
    const Json* v = Member(key);
    if (v == nullptr) return 0;
    if (!v->is_number_integer() || (v->is_number_unsigned() && v->get<uint64_t>() > INT64_MAX)) {
      Fail(std::string(key) + " must be an integer");
      return 0;
    }
    return v->get<int64_t>();
  }
  std::string String(std::string_view key) {
    const Json* v = Member(key);
    if (v == nullptr) return {};
    if (!v->is_string()) {
      Fail(std::string(key) + " must be a string");
      return {};
    }
    return v->get<std::string>();
  }
  bool Bool(std::string_view key) {
    const Json* v = Member(key);
    if (v == nullptr) return false;
    if (!v->is_boolean()) {
      Fail(std::string(key) + " must be a boolean");
      return false;
    }
    return v->get<bool>();
  }
  const Json* Array(std::string_view key) {
    const Json* v = Member(key);
    if (v != nullptr && !v->is_array()) {
      Fail(std::string(key) + " must be an array");
      return nullptr;
    }
    return v;
  }
  void Fail(const std::string& message) {
    if (status_.ok()) {
      status_ = Corruption("table manifest: " + where_ + message, std::string(object_));
    }
  }
  const Status& status() const { return status_; }
  Status&& TakeStatus() { return std::move(status_); }

 private:
  const Json& json_;
  std::string_view object_;
  std::string where_;
  Status status_;
};

Result<TypeId> ParseTypeName(std::string_view name) {
  for (int i = static_cast<int>(TypeId::kBool); i <= static_cast<int>(TypeId::kVector); ++i) {
    if (TypeIdName(static_cast<TypeId>(i)) == name) return static_cast<TypeId>(i);
  }
  return InvalidArgument("unknown type name '" + std::string(name) + "'");
}

Json SchemaToJson(const Schema& schema) {
  Json columns = Json::array();
  for (const Field& field : schema) {
    columns.push_back({{"id", field.id},
                       {"name", field.name},
                       {"type", field.type.ToString()},
                       {"nullable", field.nullable}});
  }
  return columns;
}

Schema SchemaFromJson(const Json& columns, Reader& outer, std::string_view object) {
  Schema schema;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i].is_object()) {
      outer.Fail("schema[" + std::to_string(i) + "] must be an object");
      return {};
    }
    Reader r(columns[i], object, "schema[" + std::to_string(i) + "].");
    Field field;
    const uint64_t id = r.U64("id");
    if (id > UINT32_MAX) r.Fail("id is above 2^32 - 1");
    field.id = static_cast<uint32_t>(id);
    field.name = r.String("name");
    const std::string type = r.String("type");
    field.nullable = r.Bool("nullable");
    if (r.status().ok()) {
      Result<DataType> parsed = internal::ParseDataType(type);
      if (!parsed.ok()) r.Fail(parsed.status().message());
      if (parsed.ok()) field.type = *parsed;
    }
    if (!r.status().ok()) {
      outer.Fail(r.status().message().substr(std::string_view("table manifest: ").size()));
      return {};
    }
    schema.push_back(std::move(field));
  }
  return schema;
}

Json FragmentToJson(const FragmentEntry& f) {
  Json deletion = nullptr;
  if (f.deletion) {
    deletion = {{"path", f.deletion->path},
                {"count", f.deletion->count},
                {"bytes", f.deletion->bytes},
                {"xxhash64", f.deletion->xxhash64}};
  }
  Json json = {
      {"id", f.id}, {"path", f.path}, {"rows", f.rows}, {"bytes", f.bytes}, {"deletion", deletion}};
  if (!f.column_offsets.empty()) json["column_offsets"] = f.column_offsets;
  return json;
}

FragmentEntry FragmentFromJson(const Json& json, Reader& r, std::string_view object) {
  FragmentEntry f;
  f.id = r.String("id");
  f.path = r.String("path");
  f.rows = r.U64("rows");
  f.bytes = r.U64("bytes");
  if (const Json* d = r.Member("deletion", /*optional=*/true); d != nullptr) {
    if (!d->is_object()) {
      r.Fail("deletion must be null or an object");
      return f;
    }
    Reader dr(*d, object, "deletion.");
    DeletionRef ref{dr.String("path"), dr.U64("count"), dr.U64("bytes"), dr.U64("xxhash64")};
    if (!dr.status().ok()) r.Fail(dr.status().message());
    if (ref.count == 0 || ref.count > f.rows) r.Fail("deletion count is outside [1, rows]");
    if (!ref.path.starts_with("deletions/")) r.Fail("deletion path must be under deletions/");
    f.deletion = std::move(ref);
  }
  if (!f.path.starts_with("data/")) r.Fail("fragment path must be under data/");
  if (const Json* offsets = r.Member("column_offsets", /*optional=*/true); offsets != nullptr) {
    if (!offsets->is_array()) {
      r.Fail("column_offsets must be an array");
      return f;
    }
    for (const Json& at : *offsets) {
      if (!at.is_number_unsigned()) {
        r.Fail("column_offsets must hold unsigned integers");
        return f;
      }
      f.column_offsets.push_back(at.get<uint64_t>());
    }
  }
  (void)json;
  return f;
}

// Whether `f`'s column offsets can describe a fragment of `columns` columns: one per column and
// the footer's, ascending from the end of the header, the footer's leaving room for the smallest
// footer and the tail. Their values are checked against the footer when the fragment is read.
bool ColumnOffsetsFit(const FragmentEntry& f, size_t columns) {
  const std::vector<uint64_t>& at = f.column_offsets;
  if (at.size() != columns + 1 || at.front() != kHeaderBytes) return false;
  if (!std::is_sorted(at.begin(), at.end())) return false;
  return f.bytes >= kTailBytes + kFooterBytesMin &&
         at.back() <= f.bytes - kTailBytes - kFooterBytesMin;
}

const std::set<std::string, std::less<>>& KnownMembers() {
  static const std::set<std::string, std::less<>> known = {"format",
                                                           "table_key",
                                                           "stable_table_id",
                                                           "incarnation",
                                                           "staged_version",
                                                           "base_staged_version",
                                                           "target_version",
                                                           "transaction_uuid",
                                                           "operation",
                                                           "schema",
                                                           "fragments",
                                                           "entity_count",
                                                           "inserted_ids_count",
                                                           "updated_ids_count",
                                                           "deleted_ids",
                                                           "deleted_ids_path",
                                                           "deleted_ids_count",
                                                           "created_at",
                                                           "staged_against"};
  return known;
}

}  // namespace

std::string_view OperationName(Operation op) { return kOperationNames[static_cast<int>(op)]; }

TablePin TableManifest::pin() const {
  return TablePin{stable_table_id, incarnation,      table_key,   target_version,
                  staged_version,  transaction_uuid, entity_count};
}

std::string ManifestName(const TableId& table, uint64_t staged_version) {
  return table.Root() + "/versions/d" + std::to_string(staged_version) + ".json";
}
std::string ObjectName(const TableId& table, std::string_view relative_path) {
  return table.Root() + "/" + std::string(relative_path);
}
std::string DataPath(std::string_view uuid) { return "data/" + std::string(uuid) + ".ogf"; }
std::string DeletionPath(std::string_view uuid) {
  return "deletions/" + std::string(uuid) + ".del";
}
std::string DeletedIdsPath(std::string_view uuid) {
  return "deleted/" + std::string(uuid) + ".json";
}

Status ValidateTableSchema(const Schema& schema) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateSchema(schema));
  bool has_id = false, has_src = false, has_dst = false;
  for (const Field& field : schema) {
    if (field.id < kReservedFieldIdMin) continue;
    const bool reserved_string = field.type == DataType::Scalar(TypeId::kString) && !field.nullable;
    if (field.id == kIdFieldId || field.id == kSrcFieldId || field.id == kDstFieldId) {
      if (!reserved_string) {
        return InvalidArgument("field " + std::to_string(field.id) + " ('" + field.name +
                               "') is reserved for a non-nullable String");
      }
      has_id |= field.id == kIdFieldId;
      has_src |= field.id == kSrcFieldId;
      has_dst |= field.id == kDstFieldId;
    } else {
      return InvalidArgument("field id " + std::to_string(field.id) +
                             " is reserved for the table layer");
    }
  }
  if (!has_id)
    return InvalidArgument("a table schema needs the String column id (field 0xFFFFFFF0)");
  if (has_src != has_dst) return InvalidArgument("an edge table needs both src and dst columns");
  return Status::Ok();
}

uint64_t DeletedIdsJsonBytes(const std::vector<std::string>& ids) {
  return Json(ids).dump().size();
}

std::string EncodeManifest(const TableManifest& m) {
  Json json = m.extra.is_object() ? m.extra : Json::object();
  json["format"] = kManifestFormat;
  json["table_key"] = m.table_key;
  json["stable_table_id"] = m.stable_table_id;
  json["incarnation"] = m.incarnation;
  json["staged_version"] = m.staged_version;
  json["base_staged_version"] =
      m.base_staged_version ? Json(*m.base_staged_version) : Json(nullptr);
  json["target_version"] = m.target_version;
  json["transaction_uuid"] = m.transaction_uuid;
  json["operation"] = std::string(OperationName(m.operation));
  json["schema"] = SchemaToJson(m.schema);
  Json fragments = Json::array();
  for (const FragmentEntry& f : m.fragments) fragments.push_back(FragmentToJson(f));
  json["fragments"] = std::move(fragments);
  json["entity_count"] = m.entity_count;
  json["inserted_ids_count"] = m.inserted_ids_count;
  json["updated_ids_count"] = m.updated_ids_count;
  json["deleted_ids_count"] = m.deleted_ids_count;
  if (m.deleted_ids_path) {
    json["deleted_ids"] = nullptr;
    json["deleted_ids_path"] = *m.deleted_ids_path;
  } else {
    json["deleted_ids"] = m.deleted_ids;
    json["deleted_ids_path"] = nullptr;
  }
  json["created_at"] = m.created_at;
  json["staged_against"] =
      m.staged_against ? Json{{"stream", m.staged_against->stream}, {"seq", m.staged_against->seq}}
                       : Json(nullptr);
  return CanonicalJson(json);
}

namespace {

// The members after the header checks; `r` collects the first problem.
void ReadBody(const Json& json, Reader& r, std::string_view object, TableManifest& m) {
  m.table_key = r.String("table_key");
  m.stable_table_id = r.U64("stable_table_id");
  m.incarnation = r.U64("incarnation");
  m.staged_version = r.U64("staged_version");
  if (r.Member("base_staged_version", /*optional=*/true) != nullptr) {
    m.base_staged_version = r.U64("base_staged_version");
  }
  m.target_version = r.U64("target_version");
  m.transaction_uuid = r.String("transaction_uuid");
  const std::string op = r.String("operation");
  const std::optional<Operation> known_op = internal::OperationFromName(op);
  if (known_op) m.operation = *known_op;
  if (r.status().ok() && !known_op) r.Fail("unknown operation '" + op + "'");
  if (const Json* schema = r.Array("schema"); schema != nullptr) {
    m.schema = SchemaFromJson(*schema, r, object);
  }
  if (const Json* fragments = r.Array("fragments"); fragments != nullptr) {
    for (size_t i = 0; i < fragments->size() && r.status().ok(); ++i) {
      const Json& f = (*fragments)[i];
      if (!f.is_object()) {
        r.Fail("fragments[" + std::to_string(i) + "] must be an object");
        break;
      }
      Reader fr(f, object, "fragments[" + std::to_string(i) + "].");
      m.fragments.push_back(FragmentFromJson(f, fr, object));
      if (!fr.status().ok()) r.Fail(fr.status().message());
    }
  }
  m.entity_count = r.U64("entity_count");
  m.inserted_ids_count = r.U64("inserted_ids_count");
  m.updated_ids_count = r.U64("updated_ids_count");
  m.deleted_ids_count = r.U64("deleted_ids_count");
  if (const Json* path = r.Member("deleted_ids_path", /*optional=*/true); path != nullptr) {
    m.deleted_ids_path = r.String("deleted_ids_path");
    if (!m.deleted_ids_path->starts_with("deleted/"))
      r.Fail("deleted_ids_path must be under deleted/");
  } else if (const Json* ids = r.Array("deleted_ids"); ids != nullptr) {
    for (const Json& id : *ids) {
      if (!id.is_string()) {
        r.Fail("deleted_ids must hold strings");
        break;
      }
      m.deleted_ids.push_back(id.get<std::string>());
    }
    if (m.deleted_ids.size() != m.deleted_ids_count) r.Fail("deleted_ids_count does not match");
  }
  m.created_at = r.I64("created_at");
  if (const Json* against = r.Member("staged_against", /*optional=*/true); against != nullptr) {
    if (!against->is_object()) {
      r.Fail("staged_against must be null or an object");
    } else {
      Reader ar(*against, object, "staged_against.");
      m.staged_against = StagedAgainst{ar.String("stream"), ar.U64("seq")};
      if (!ar.status().ok()) r.Fail(ar.status().message());
    }
  }
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!KnownMembers().contains(it.key())) m.extra[it.key()] = it.value();
  }
}

}  // namespace

namespace internal {

std::optional<Operation> OperationFromName(std::string_view name) {
  for (int i = 0; i < static_cast<int>(std::size(kOperationNames)); ++i) {
    if (kOperationNames[i] == name) return static_cast<Operation>(i);
  }
  return std::nullopt;
}

Result<DataType> ParseDataType(std::string_view text) {
  DataType type;
  if (text.starts_with("List<") && text.ends_with(">")) {
    OMNIGRAPH_ASSIGN_OR_RETURN(TypeId element, ParseTypeName(text.substr(5, text.size() - 6)));
    type = DataType::List(element);
  } else if (text.starts_with("Vector(") && text.ends_with(")")) {
    const std::string digits(text.substr(7, text.size() - 8));
    if (digits.empty() || digits.size() > 10 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      return InvalidArgument("bad vector dimension in '" + std::string(text) + "'");
    }
    type = DataType::Vector(static_cast<uint32_t>(std::min<uint64_t>(std::stoull(digits), ~0u)));
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(TypeId id, ParseTypeName(text));
    if (!IsScalar(id)) return InvalidArgument("type '" + std::string(text) + "' needs parameters");
    type = DataType::Scalar(id);
  }
  OMNIGRAPH_RETURN_IF_ERROR(ValidateDataType(type));
  return type;
}

std::string FirstWholeProblem(const TableManifest& m) {
  if ((m.staged_version & kStagedVersionBit) == 0) return "staged_version lacks bit 63";
  if (Status s = ValidateTableSchema(m.schema); !s.ok()) return "schema: " + s.message();
  // Paths listed twice are found by sorting views of them; the set below, which names the first
  // repeated one in list order, runs only when there is one.
  std::vector<std::string_view> sorted;
  sorted.reserve(m.fragments.size());
  uint64_t live = 0;
  for (const FragmentEntry& f : m.fragments) {
    live += f.live_rows();
    sorted.push_back(f.path);
  }
  std::sort(sorted.begin(), sorted.end());
  const bool repeated = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  std::set<std::string_view> paths;
  for (const FragmentEntry& f : m.fragments) {
    if (repeated && !paths.insert(f.path).second) return "fragment " + f.path + " is listed twice";
    if (!f.column_offsets.empty() && !ColumnOffsetsFit(f, m.schema.size())) {
      return "fragment " + f.path + ": column_offsets do not fit its " +
             std::to_string(m.schema.size()) + " columns and " + std::to_string(f.bytes) + " bytes";
    }
  }
  if (live != m.entity_count) {
    return "entity_count " + std::to_string(m.entity_count) + " differs from the fragments' " +
           std::to_string(live) + " live rows";
  }
  return {};
}

Result<TableManifest> DecodeManifestFromJson(std::string_view bytes, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json json, ParseJson(bytes, object, /*as_corruption=*/true));
  if (!json.is_object())
    return Corruption("table manifest is not a JSON object", std::string(object));
  Reader r(json, object, "");
  const uint64_t format = r.U64("format");
  if (!r.status().ok()) return r.TakeStatus();
  if (format > kManifestFormat || format == 0) {
    return Status(Code::kFormatTooNew,
                  "table manifest format " + std::to_string(format) + "; this binary reads " +
                      std::to_string(kManifestFormat),
                  std::string(object));
  }
  TableManifest m;
  ReadBody(json, r, object, m);
  if (!r.status().ok()) return r.TakeStatus();
  if (std::string problem = FirstWholeProblem(m); !problem.empty()) r.Fail(problem);
  if (!r.status().ok()) return r.TakeStatus();
  return m;
}

}  // namespace internal

Result<TableManifest> DecodeManifest(std::string_view bytes, std::string_view object) {
  // The scan reads what EncodeManifest writes; anything else, and every damaged manifest, is
  // read (and its damage named) by the DOM reading.
  if (std::optional<TableManifest> scanned = internal::ScanManifest(bytes)) {
    return *std::move(scanned);
  }
  return internal::DecodeManifestFromJson(bytes, object);
}

std::string EncodeDeletedIds(uint64_t staged_version, const std::vector<std::string>& ids) {
  return CanonicalJson(
      Json{{"format", kManifestFormat}, {"staged_version", staged_version}, {"ids", ids}});
}

Result<std::vector<std::string>> DecodeDeletedIds(std::string_view bytes, uint64_t staged_version,
                                                  uint64_t count, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json json, ParseJson(bytes, object, /*as_corruption=*/true));
  if (!json.is_object())
    return Corruption("deleted ids file is not a JSON object", std::string(object));
  Reader r(json, object, "deleted ids: ");
  const uint64_t format = r.U64("format");
  const uint64_t version = r.U64("staged_version");
  const Json* ids = r.Array("ids");
  if (!r.status().ok()) return r.TakeStatus();
  if (format > kManifestFormat) {
    return Status(Code::kFormatTooNew, "deleted ids format " + std::to_string(format),
                  std::string(object));
  }
  if (version != staged_version) r.Fail("names staged version " + std::to_string(version));
  std::vector<std::string> out;
  for (const Json& id : *ids) {
    if (!id.is_string()) {
      r.Fail("ids must be strings");
      break;
    }
    out.push_back(id.get<std::string>());
  }
  if (r.status().ok() && out.size() != count) {
    r.Fail("holds " + std::to_string(out.size()) + " ids; the manifest says " +
           std::to_string(count));
  }
  if (!r.status().ok()) return r.TakeStatus();
  return out;
}

}  // namespace omnigraph::table

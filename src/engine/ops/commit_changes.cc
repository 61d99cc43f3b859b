#include "engine/ops/commit_changes.h"

#include <algorithm>
#include <charconv>
#include <span>
#include <tuple>

#include "base/hash.h"
#include "base/json_writer.h"
#include "commit/change_set.h"
#include "engine/ops/jsonl_values.h"
#include "engine/write/change_sets.h"
#include "query/exec/column_codec.h"

namespace omnigraph::engine {

namespace {

constexpr std::string_view kOpNames[] = {"insert", "update", "delete"};

// Page tokens (docs/format/commit-changes.md): "p1." + hex of the position's canonical JSON +
// "." + check digits that catch a damaged or truncated token.
constexpr std::string_view kTokenPrefix = "p1.";
constexpr size_t kTokenCheckHexDigits = 16;
constexpr size_t kTokenBytesMax = 4096;

std::optional<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    unsigned byte = 0;
    auto [end, ec] = std::from_chars(hex.data() + i, hex.data() + i + 2, byte, 16);
    if (ec != std::errc() || end != hex.data() + i + 2) return std::nullopt;
    out += static_cast<char>(byte);
  }
  return out;
}

// The image of each found row of `ids` in `version`, by id (an absent id has none).
Result<std::map<std::string, std::string>> Images(const schema::TypeDef& type,
                                                  const table::TableVersion& version,
                                                  const std::vector<std::string>& ids) {
  std::map<std::string, std::string> out;
  if (ids.empty()) return out;
  OMNIGRAPH_ASSIGN_OR_RETURN(table::LookupResult found, version.Lookup(ids));
  const table::ColumnBatch& rows = found.rows;
  const bool edge = type.kind == schema::TypeKind::kEdge;
  const table::Column* src = edge ? rows.FindColumn(table::kSrcFieldId) : nullptr;
  const table::Column* dst = edge ? rows.FindColumn(table::kDstFieldId) : nullptr;
  uint64_t row = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!found.found[i]) continue;
    std::string image;
    JsonWriter w(&image);
    w.BeginObject();
    if (edge && src != nullptr && dst != nullptr) {
      w.Key("endpoints");
      w.BeginObject();
      w.Key("from");
      w.String(src->StringAt(row));
      w.Key("to");
      w.String(dst->StringAt(row));
      w.EndObject();
    }
    w.Key("properties");
    w.BeginObject();
    for (const schema::PropertyDef& p : type.properties) {
      const table::Column* c = rows.FindColumn(static_cast<uint32_t>(p.id));
      if (c == nullptr) continue;
      w.Key(p.name);
      WriteJson(w, query::ValueAt(*c, row), p.type);
    }
    w.EndObject();
    w.EndObject();
    if (!w.ok()) return Corruption("a string of " + type.table_key() + " is not valid UTF-8");
    out.emplace(ids[i], std::move(image));
    ++row;
  }
  return out;
}

const schema::TypeDef* TypeOf(const schema::Catalog& catalog, const TableId& id) {
  for (const auto* list : {&catalog.nodes(), &catalog.edges()}) {
    for (const schema::TypeDef& t : *list) {
      if (t.id == id.stable_table_id && t.incarnation == id.incarnation) return &t;
    }
  }
  return nullptr;
}

// One listed change before hydration: where it sorts and which table holds it.
struct Candidate {
  ChangePosition at;
  const schema::TypeDef* type = nullptr;
};

auto Key(const ChangePosition& p) { return std::tie(p.edge, p.type_id, p.id, p.op); }

// What a page selects: the changes after the page token's position that the filter keeps.
struct Selection {
  std::optional<ChangePosition> after;  // the page token's position
  ChangeFilter filter;                  // the repeatable filters; empty keeps every change

  bool Takes(const ChangePosition& p, const schema::TypeDef& type) const {
    return (!after || Key(*after) < Key(p)) && (filter.empty() || Kept(p, type));
  }
  bool Kept(const ChangePosition& p, const schema::TypeDef& type) const {
    const ChangeFilter& f = filter;
    return (f.kinds.empty() || f.kinds.count(p.edge ? "edge" : "node")) &&
           (f.ops.empty() || f.ops.count(std::string(kOpNames[p.op]))) &&
           (f.types.empty() || f.types.count(type.name));
  }
};

// The listed changes `select` takes, in the order pages list them; no table is read.
Result<std::vector<Candidate>> Candidates(const commit::ChangeSet& set, const Snapshot& before,
                                          const Snapshot& after, const Selection& select) {
  std::vector<Candidate> out;
  for (const commit::TableChangeSet& t : set.tables) {
    const schema::TypeDef* type = TypeOf(after.catalog(), t.identity());
    if (type == nullptr) type = TypeOf(before.catalog(), t.identity());
    if (type == nullptr) {
      return Corruption("the change set names table '" + t.table_key + "', which neither the " +
                        "commit nor its parent has");
    }
    const bool edge = type->kind == schema::TypeKind::kEdge;
    int op = 0;
    for (const auto* ids : {&t.inserted, &t.updated, &t.deleted}) {
      for (const std::string& id : *ids) {
        ChangePosition at{edge, type->id, id, op};
        if (select.Takes(at, *type)) out.push_back(Candidate{std::move(at), type});
      }
      ++op;
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Candidate& a, const Candidate& b) { return Key(a.at) < Key(b.at); });
  return out;
}

// The images of `batch`'s ids: deleted and updated ones in `before`, inserted and updated ones
// in `after`; one lookup per table and side.
using ImagesByType = std::map<const schema::TypeDef*, std::map<std::string, std::string>>;
Status Hydrate(std::span<const Candidate> batch, const Snapshot& before, const Snapshot& after,
               ImagesByType& old_images, ImagesByType& new_images) {
  std::map<const schema::TypeDef*, std::vector<std::string>> old_ids, new_ids;
  for (const Candidate& c : batch) {
    if (c.at.op != 0) old_ids[c.type].push_back(c.at.id);
    if (c.at.op != 2) new_ids[c.type].push_back(c.at.id);
  }
  auto images = [](const Snapshot& s, const auto& ids, ImagesByType& into) -> Status {
    for (const auto& [type, list] : ids) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> v,
                                 s.Table(type->table_key()));
      OMNIGRAPH_ASSIGN_OR_RETURN(auto got, Images(*type, *v, list));
      into[type].merge(got);
    }
    return Status::Ok();
  };
  OMNIGRAPH_RETURN_IF_ERROR(images(before, old_ids, old_images));
  return images(after, new_ids, new_images);
}

// The changes of `batch`, hydrated, appended to `out` in order; unchanged rewrites left out.
Status AppendChanges(std::span<const Candidate> batch, const Snapshot& before,
                     const Snapshot& after, Json& out) {
  ImagesByType old_images, new_images;
  OMNIGRAPH_RETURN_IF_ERROR(Hydrate(batch, before, after, old_images, new_images));
  for (const Candidate& c : batch) {
    const int op = c.at.op;
    const auto& olds = old_images[c.type];
    const auto& news = new_images[c.type];
    auto b = olds.find(c.at.id);
    auto a = news.find(c.at.id);
    if ((op != 0 && b == olds.end()) || (op != 2 && a == news.end())) {
      return Corruption("the change set lists " + std::string(kOpNames[op]) + " of '" + c.at.id +
                        "' in " + c.type->table_key() + ", which the tables do not hold");
    }
    if (op == 1 && b->second == a->second) continue;  // A rewrite of the same row.
    Json j = Json::object();
    j["kind"] = c.at.edge ? "edge" : "node";
    // OmniGraph's ChangeTypeOutput: the type's id is an opaque string.
    j["type"] = Json{{"id", std::to_string(c.type->id)}, {"name", c.type->name}};
    j["id"] = c.at.id;
    j["op"] = kOpNames[op];
    if (op != 0) {
      OMNIGRAPH_ASSIGN_OR_RETURN(j["before"], ParseJson(b->second, "image"));
    }
    if (op != 2) {
      OMNIGRAPH_ASSIGN_OR_RETURN(j["after"], ParseJson(a->second, "image"));
    }
    out.push_back(std::move(j));
  }
  return Status::Ok();
}

// The change set of `r`: the record's (its delta read when the ids spilled) or the exact diff.
Result<commit::ChangeSet> SetOf(Graph& graph, const commit::Record& r, const Snapshot& before,
                                const Snapshot& after) {
  if (r.change_set) return commit::LoadChangeSetIds(*graph.runtime().store, *r.change_set);
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::ChangeSet changes,
                             DiffChangeSet(graph.tables(), before.state(), after.state()));
  if (changes.schema_boundary) {
    return Status(Code::kSchemaBoundary,
                  "commit '" + r.commit_id + "' changed the schema: its entities are not diffed");
  }
  return changes;
}

// Up to `limit` changes of `set` that `select` takes, hydrating in batches of what the page still
// needs (unchanged rewrites make a batch come up short); `next` is set to the last change looked
// at when more remain.
Result<Json> PageOf(const commit::ChangeSet& set, const Snapshot& before, const Snapshot& after,
                    const Selection& select, size_t limit, std::optional<ChangePosition>& next) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<Candidate> list, Candidates(set, before, after, select));
  Json out = Json::array();
  size_t done = 0;
  while (out.size() < limit && done < list.size()) {
    const size_t n = std::min(limit - out.size(), list.size() - done);
    OMNIGRAPH_RETURN_IF_ERROR(
        AppendChanges(std::span<const Candidate>(list).subspan(done, n), before, after, out));
    done += n;
  }
  if (done < list.size()) next = list[done - 1].at;
  return out;
}

// The selection a request asks for, checked against the commit's schema.
Result<Selection> SelectionOf(const CommitChangesRequest& q, const ChangesScope& scope,
                              const Snapshot& after) {
  Selection s;
  if (q.limit < 1 || q.limit > kCommitChangesPageMax) {
    return InvalidArgument("the limit of a page of commit changes must be 1 to " +
                           std::to_string(kCommitChangesPageMax) + ", not " +
                           std::to_string(q.limit));
  }
  OMNIGRAPH_RETURN_IF_ERROR(CheckChangeFilter(q.filter));
  for (const std::string& name : q.filter.types) {
    if (after.catalog().FindTable(name) == nullptr) {
      return InvalidArgument("the schema of " + std::string(scope.noun) + " '" +
                             std::string(scope.id) + "' has no type '" + name + "'");
    }
  }
  s.filter = q.filter;
  if (!q.page_token.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(s.after, DecodeChangesPageToken(q.page_token, scope));
  }
  return s;
}

}  // namespace

Json CauseOf(const commit::Record& r) {
  Json cause = Json::object();
  cause["graph_commit_id"] = r.commit_id;
  cause["parent_commit_id"] = *r.parent_commit_id;
  if (r.lineage) cause["merged_parent_commit_id"] = r.lineage->merged_parent_commit_id;
  cause["authored_branch"] = r.branch.value_or("");
  if (r.actor) cause["actor_id"] = *r.actor;
  cause["authored_at"] = r.created_at;
  return cause;
}

Result<Json> CommitChanges(Graph& graph, std::string_view commit_id,
                           const CommitChangesRequest& request) {
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r,
                             commit::LookupCommit(*graph.runtime().store, commit_id));
  if (r.kind != commit::RecordKind::kCommit) {
    return Status(Code::kCommitNotFound, "'" + std::string(commit_id) + "' is not a commit");
  }
  if (!r.parent_commit_id) {
    return Status(Code::kParentlessCommit,
                  "commit '" + r.commit_id + "' has no parent (genesis): it has no diff");
  }
  if (r.change_set && r.change_set->schema_boundary) {
    return Status(Code::kSchemaBoundary,
                  "commit '" + r.commit_id + "' changed the schema: its entities are not diffed");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot before, graph.SnapshotAtCommit(*r.parent_commit_id));
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot after, graph.SnapshotAtCommit(r.commit_id));
  const ChangesScope scope{"commit", r.commit_id, "commit changes"};
  OMNIGRAPH_ASSIGN_OR_RETURN(Selection select, SelectionOf(request, scope, after));
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::ChangeSet set, SetOf(graph, r, before, after));
  Json out = Json::object();
  out["cause"] = CauseOf(r);
  std::optional<ChangePosition> next;
  OMNIGRAPH_ASSIGN_OR_RETURN(out["changes"],
                             PageOf(set, before, after, select, request.limit, next));
  if (next) out["next_page_token"] = EncodeChangesPageToken(r.commit_id, *next);
  return out;
}

Status CheckChangeFilter(const ChangeFilter& filter) {
  for (const std::string& kind : filter.kinds) {
    if (kind != "node" && kind != "edge") {
      return InvalidArgument("unknown change kind '" + kind + "' (expected node or edge)");
    }
  }
  for (const std::string& op : filter.ops) {
    if (std::find(std::begin(kOpNames), std::end(kOpNames), op) == std::end(kOpNames)) {
      return InvalidArgument("unknown change op '" + op + "' (expected insert, update or delete)");
    }
  }
  if (filter.types.count("")) return InvalidArgument("a change type filter names no type");
  return Status::Ok();
}

Result<Json> ChangesOf(Graph& graph, const commit::Record& r, const Snapshot& before,
                       const Snapshot& after, const ChangeFilter& filter) {
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::ChangeSet set, SetOf(graph, r, before, after));
  std::optional<ChangePosition> next;
  Selection select;
  select.filter = filter;
  return PageOf(set, before, after, select, std::numeric_limits<size_t>::max(), next);
}

Result<Json> ChangesPage(const commit::ChangeSet& set, const Snapshot& before,
                         const Snapshot& after, const CommitChangesRequest& request,
                         const ChangesScope& scope, std::string* next_page_token) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Selection select, SelectionOf(request, scope, after));
  std::optional<ChangePosition> next;
  OMNIGRAPH_ASSIGN_OR_RETURN(Json changes, PageOf(set, before, after, select, request.limit, next));
  if (next) *next_page_token = EncodeChangesPageToken(scope.id, *next);
  return changes;
}

std::string EncodeChangesPageToken(std::string_view commit_id, const ChangePosition& after) {
  const std::string payload = HexEncode(CanonicalJson(Json{{"c", std::string(commit_id)},
                                                           {"e", after.edge},
                                                           {"i", after.id},
                                                           {"o", after.op},
                                                           {"t", after.type_id}}));
  return std::string(kTokenPrefix) + payload + "." +
         Sha256Hex(payload).substr(0, kTokenCheckHexDigits);
}

Result<ChangePosition> DecodeChangesPageToken(std::string_view token, std::string_view commit_id) {
  return DecodeChangesPageToken(token, ChangesScope{"commit", commit_id, "commit changes"});
}

Result<ChangePosition> DecodeChangesPageToken(std::string_view token, const ChangesScope& scope) {
  const std::string_view commit_id = scope.id;
  const std::string quoted =
      "'" + std::string(token.substr(0, 64)) + (token.size() > 64 ? "...'" : "'");
  std::string_view text = token;
  if (text.size() > kTokenBytesMax || !text.starts_with(kTokenPrefix)) {
    return InvalidArgument(quoted + " is not a page token of " + std::string(scope.listing));
  }
  text.remove_prefix(kTokenPrefix.size());
  const size_t dot = text.rfind('.');
  if (dot == std::string_view::npos ||
      Sha256Hex(text.substr(0, dot)).substr(0, kTokenCheckHexDigits) != text.substr(dot + 1)) {
    return InvalidArgument("page token " + quoted + " is damaged (its check digits do not match)");
  }
  std::optional<std::string> json = HexDecode(text.substr(0, dot));
  Result<Json> parsed = json ? ParseJson(*json, "page token") : Result<Json>(Json());
  if (!parsed.ok() || !parsed->is_object() || !(*parsed)["c"].is_string() ||
      !(*parsed)["e"].is_boolean() || !(*parsed)["i"].is_string() ||
      !(*parsed)["o"].is_number_unsigned() || (*parsed)["o"].get<uint64_t>() > 2 ||
      !(*parsed)["t"].is_number_unsigned()) {
    return InvalidArgument("page token " + quoted + " is damaged (its content is not a position)");
  }
  const std::string of = (*parsed)["c"].get<std::string>();
  if (of != commit_id) {
    return InvalidArgument("page token " + quoted + " is of " + std::string(scope.noun) + " '" +
                           of + "', not of '" + std::string(commit_id) + "'");
  }
  return ChangePosition{(*parsed)["e"].get<bool>(), (*parsed)["t"].get<uint64_t>(),
                        (*parsed)["i"].get<std::string>(),
                        static_cast<int>((*parsed)["o"].get<uint64_t>())};
}

}  // namespace omnigraph::engine

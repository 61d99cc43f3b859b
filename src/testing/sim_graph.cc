// graph_writes: graph writes through engine::Graph against an independent in-memory model of the
// graph (docs/design/simulation.md "Graph writes").
//
// A writer draws each write from its own Random, builds the rows itself, and records in the model
// what the write means (items, notes and links added, removed or retagged) before calling
// engine::Write. After the run the oracles fold the model's effects in record order — each record
// names its write by the op id it carries as its actor — and compare that fold with the tables
// the engine reads back at every seq.
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "commit/documents.h"
#include "commit/names.h"
#include "engine/graph/graph.h"
#include "query/exec/column_codec.h"
#include "schema/catalog.h"
#include "schema/identity.h"
#include "schema/keys.h"
#include "table/table_store.h"
#include "testing/sim_graph.h"
#include "testing/sim_model.h"

namespace omnigraph::testing {

using engine::Graph;
using engine::TableChange;
using engine::WriteRequest;
using engine::WriteResult;

namespace {

uint32_t FieldOf(const schema::TypeDef& type, std::string_view property) {
  for (const schema::PropertyDef& p : type.properties) {
    if (p.name == property) return static_cast<uint32_t>(p.id);
  }
  OMNIGRAPH_CHECK_MSG(false, "no property " + std::string(property));
  return 0;
}

}  // namespace

SimTypes BuildTypes() {
  Result<schema::SchemaIr> ir = schema::AcceptInitial(kSimGraphSchema);
  OMNIGRAPH_CHECK_MSG(ir.ok(), ir.status().ToString());
  Result<schema::Catalog> catalog = schema::Catalog::Build(std::move(*ir));
  OMNIGRAPH_CHECK_MSG(catalog.ok(), catalog.status().ToString());
  SimTypes t;
  t.catalog = std::make_shared<const schema::Catalog>(std::move(*catalog));
  t.item = t.catalog->FindNode("Item");
  t.note = t.catalog->FindNode("Note");
  t.link = t.catalog->FindEdge("Link");
  OMNIGRAPH_CHECK(t.item && t.note && t.link);
  t.name_field = FieldOf(*t.item, "name");
  t.tag_field = FieldOf(*t.item, "tag");
  t.text_field = FieldOf(*t.note, "text");
  return t;
}

std::string ItemId(const SimTypes& t, const std::string& name) {
  const schema::Value key = schema::Value::String(name);
  Result<std::string> id = schema::DeriveNodeId(*t.item, std::span<const schema::Value>(&key, 1));
  OMNIGRAPH_CHECK_MSG(id.ok(), id.status().ToString());
  return *id;
}

namespace {

std::optional<std::string> StringOrNull(const table::Column* c, uint64_t row) {
  if (c == nullptr || c->IsNull(row)) return std::nullopt;
  return std::string(c->StringAt(row));
}

// The graph as the engine holds it at one commit (or as the model folds it): one rendered line
// per row, sorted, duplicates kept.
struct GraphRows {
  std::vector<std::string> items;  // "id|name|tag" (tag "-" when null)
  std::vector<std::string> notes;  // "id|text"
  std::vector<std::string> links;  // "id|src|dst"
  // Engine reads only: every item name and tag, note id and link id (where op ids show).
  std::set<std::string> op_ids;
  bool SameRows(const GraphRows& o) const {
    return items == o.items && notes == o.notes && links == o.links;
  }
};

// The model's graph at one seq.
struct ModelGraph {
  std::map<std::string, std::pair<std::string, std::optional<std::string>>> items;  // id->name,tag
  std::map<std::string, std::string> notes;                                         // id -> text
  std::map<std::string, GraphLink> links;

  void Apply(const GraphEffect& e) {
    for (const auto& [id, name] : e.add_items) items[id] = {name, std::nullopt};
    for (const std::string& id : e.add_notes) notes[id] = id;
    for (const GraphLink& l : e.add_links) links[l.id] = l;
    for (const std::string& id : e.del_items) items.erase(id);
    for (const std::string& id : e.del_notes) notes.erase(id);
    for (const std::string& id : e.del_links) links.erase(id);
    for (const auto& [id, tag] : e.set_tags) {
      auto it = items.find(id);
      if (it != items.end()) it->second.second = tag;
    }
  }

  GraphRows Render() const {
    GraphRows r;
    for (const auto& [id, v] : items)
      r.items.push_back(id + "|" + v.first + "|" + v.second.value_or("-"));
    for (const auto& [id, text] : notes) r.notes.push_back(id + "|" + text);
    for (const auto& [id, l] : links) r.links.push_back(id + "|" + l.src + "|" + l.dst);
    return r;
  }
};

Result<table::ColumnBatch> ScanTable(const engine::Snapshot& s, std::string_view key) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> t, s.Table(key));
  return t->ScanAll(table::ScanOptions{});
}

// Reads the three tables of a snapshot, rendered like ModelGraph::Render.
Result<GraphRows> ReadGraph(const SimTypes& t, const engine::Snapshot& s) {
  GraphRows out;
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch items, ScanTable(s, kItems));
  const table::Column* id = items.FindColumn(table::kIdFieldId);
  const table::Column* name = items.FindColumn(t.name_field);
  const table::Column* tag = items.FindColumn(t.tag_field);
  for (uint64_t r = 0; r < items.num_rows(); ++r) {
    out.items.push_back(StringOrNull(id, r).value_or("?") + "|" +
                        StringOrNull(name, r).value_or("?") + "|" +
                        StringOrNull(tag, r).value_or("-"));
    if (auto n = StringOrNull(name, r)) out.op_ids.insert(*n);
    if (auto g = StringOrNull(tag, r)) out.op_ids.insert(*g);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch notes, ScanTable(s, kNotes));
  id = notes.FindColumn(table::kIdFieldId);
  const table::Column* text = notes.FindColumn(t.text_field);
  for (uint64_t r = 0; r < notes.num_rows(); ++r) {
    out.notes.push_back(StringOrNull(id, r).value_or("?") + "|" +
                        StringOrNull(text, r).value_or("-"));
    if (auto n = StringOrNull(id, r)) out.op_ids.insert(*n);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch links, ScanTable(s, kLinks));
  id = links.FindColumn(table::kIdFieldId);
  const table::Column* src = links.FindColumn(table::kSrcFieldId);
  const table::Column* dst = links.FindColumn(table::kDstFieldId);
  for (uint64_t r = 0; r < links.num_rows(); ++r) {
    out.links.push_back(StringOrNull(id, r).value_or("?") + "|" +
                        StringOrNull(src, r).value_or("?") + "|" +
                        StringOrNull(dst, r).value_or("?"));
    if (auto n = StringOrNull(id, r)) out.op_ids.insert(*n);
  }
  std::sort(out.items.begin(), out.items.end());
  std::sort(out.notes.begin(), out.notes.end());
  std::sort(out.links.begin(), out.links.end());
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += " " + s;
  return out.empty() ? " (none)" : out;
}

std::string Diff(const char* what, const std::vector<std::string>& got,
                 const std::vector<std::string>& want) {
  if (got == want) return "";
  return std::string(" ") + what + ": engine" + Join(got) + "; model" + Join(want) + ".";
}

}  // namespace

Result<HeadView> ReadHead(Graph& graph, const SimTypes& t, const std::string& branch) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot s, graph.SnapshotOfBranch(branch));
  HeadView view;
  view.snapshot = s;
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch items, ScanTable(s, kItems));
  for (uint64_t r = 0; r < items.num_rows(); ++r) {
    view.items.emplace_back(StringOrNull(items.FindColumn(table::kIdFieldId), r).value_or(""),
                            StringOrNull(items.FindColumn(t.name_field), r).value_or(""));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch notes, ScanTable(s, kNotes));
  for (uint64_t r = 0; r < notes.num_rows(); ++r) {
    view.notes.push_back(StringOrNull(notes.FindColumn(table::kIdFieldId), r).value_or(""));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch links, ScanTable(s, kLinks));
  for (uint64_t r = 0; r < links.num_rows(); ++r) {
    view.links.push_back(
        GraphLink{StringOrNull(links.FindColumn(table::kIdFieldId), r).value_or(""),
                  StringOrNull(links.FindColumn(table::kSrcFieldId), r).value_or(""),
                  StringOrNull(links.FindColumn(table::kDstFieldId), r).value_or("")});
  }
  return view;
}

Result<table::ColumnBatch> ItemRows(const SimTypes& t, const std::string& id,
                                    const std::string& name, std::optional<std::string> tag) {
  OMNIGRAPH_ASSIGN_OR_RETURN(query::RowsBuilder b, query::RowsBuilder::Make(*t.item));
  std::vector<std::optional<schema::Value>> values(t.item->properties.size());
  for (size_t i = 0; i < t.item->properties.size(); ++i) {
    const std::string& p = t.item->properties[i].name;
    if (p == "name") values[i] = schema::Value::String(name);
    if (p == "tag" && tag) values[i] = schema::Value::String(*tag);
  }
  OMNIGRAPH_RETURN_IF_ERROR(b.Append(id, "", "", values));
  return b.Finish();
}

Result<table::ColumnBatch> NoteRows(const SimTypes& t, const std::string& id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(query::RowsBuilder b, query::RowsBuilder::Make(*t.note));
  std::vector<std::optional<schema::Value>> values(t.note->properties.size());
  for (size_t i = 0; i < t.note->properties.size(); ++i) {
    if (t.note->properties[i].name == "text") values[i] = schema::Value::String(id);
  }
  OMNIGRAPH_RETURN_IF_ERROR(b.Append(id, "", "", values));
  return b.Finish();
}

Result<table::ColumnBatch> LinkRows(const SimTypes& t, const GraphLink& l) {
  OMNIGRAPH_ASSIGN_OR_RETURN(query::RowsBuilder b, query::RowsBuilder::Make(*t.link));
  std::vector<std::optional<schema::Value>> values(t.link->properties.size());
  OMNIGRAPH_RETURN_IF_ERROR(b.Append(l.id, l.src, l.dst, values));
  return b.Finish();
}

Json EffectCounts(const GraphEffect& e) {
  const uint64_t nodes = e.add_items.size() + e.add_notes.size() + e.del_items.size() +
                         e.del_notes.size() + e.set_tags.size();
  const uint64_t edges = e.add_links.size() + e.del_links.size();
  return Json{{"affected_nodes", nodes}, {"affected_edges", edges}};
}

// Builds one write of kind `roll` (0-99) and records its meaning in `op`. A write that needs
// existing rows reads the head first; `pick` chooses among them. An error means no write was
// attempted (the head could not be read, or there was nothing to act on).
Result<WriteRequest> BuildWrite(Graph& graph, const SimTypes& t, uint64_t roll, uint64_t pick,
                                bool with_links, GraphOpEntry& op) {
  WriteRequest w;
  w.actor = op.op_id;
  w.branch = op.branch;
  const std::string& id = op.op_id;
  if (roll < 35) {
    // An item (sometimes with a note of the same op id: one record, two tables).
    op.kind = roll < 25 ? "add-item" : "add-item-note";
    const std::string item_id = ItemId(t, id);
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch rows, ItemRows(t, item_id, id, std::nullopt));
    w.changes[kItems] = TableChange{TableChange::Op::kAppend, std::move(rows), {}};
    op.effect.add_items.emplace_back(item_id, id);
    if (roll >= 25) {
      OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch notes, NoteRows(t, id));
      w.changes[kNotes] = TableChange{TableChange::Op::kAppend, std::move(notes), {}};
      op.effect.add_notes.push_back(id);
    }
    return w;
  }
  if (roll < 50) {
    op.kind = "add-note";
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch notes, NoteRows(t, id));
    w.changes[kNotes] = TableChange{TableChange::Op::kAppend, std::move(notes), {}};
    op.effect.add_notes.push_back(id);
    return w;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(HeadView head, ReadHead(graph, t, op.branch));
  if (roll < 70) {
    // A link between two items the writer saw (insert-only: re-prepared, and re-validated, when
    // the head moves; an endpoint deleted meanwhile makes it fail validation).
    op.kind = "add-link";
    if (head.items.empty()) return Status(Code::kNotFound, "no items to link");
    GraphLink l{id, head.items[pick % head.items.size()].first,
                head.items[(pick / 7) % head.items.size()].first};
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch rows, LinkRows(t, l));
    w.changes[kLinks] = TableChange{TableChange::Op::kAppend, std::move(rows), {}};
    op.effect.add_links.push_back(l);
    return w;
  }
  w.strict = true;
  w.planned_on = head.snapshot;
  if (roll < 80) {
    // A strict update: retag an item the writer saw.
    op.kind = "update-item";
    if (head.items.empty()) return Status(Code::kNotFound, "no items to update");
    const auto& [item_id, name] = head.items[pick % head.items.size()];
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch rows, ItemRows(t, item_id, name, id));
    w.changes[kItems] = TableChange{TableChange::Op::kUpsert, std::move(rows), {}};
    op.effect.set_tags.emplace_back(item_id, id);
    return w;
  }
  if (roll < 92) {
    // A strict delete of an item and (mostly) of the links that touch it; without them a linked
    // item fails validation (dangling edges).
    op.kind = with_links ? "delete-item" : "delete-item-only";
    if (head.items.empty()) return Status(Code::kNotFound, "no items to delete");
    const std::string item_id = head.items[pick % head.items.size()].first;
    w.changes[kItems] = TableChange{TableChange::Op::kDelete, {}, {item_id}};
    op.effect.del_items.push_back(item_id);
    if (with_links) {
      std::vector<std::string> gone;
      for (const GraphLink& l : head.links) {
        if (l.src == item_id || l.dst == item_id) gone.push_back(l.id);
      }
      if (!gone.empty()) {
        w.changes[kLinks] = TableChange{TableChange::Op::kDelete, {}, gone};
        op.effect.del_links = gone;
      }
    }
    return w;
  }
  op.kind = "delete-note";
  if (head.notes.empty()) return Status(Code::kNotFound, "no notes to delete");
  const std::string note_id = head.notes[pick % head.notes.size()];
  w.changes[kNotes] = TableChange{TableChange::Op::kDelete, {}, {note_id}};
  op.effect.del_notes.push_back(note_id);
  return w;
}

namespace {

std::string OutcomeCode(const Status& s) { return s.ok() ? "ok" : std::string(CodeName(s.code())); }

}  // namespace

ActorBody GraphWriter(SimModel& model, std::vector<std::string> branches, int ops) {
  return [&model, branches, ops](ActorContext& ctx) {
    const SimTypes types = BuildTypes();
    // A fresh incarnation opens its own Graph (nothing cached survives a crash). The actor's
    // runtime has an inline executor, so table staging runs on this thread, as scheduled calls.
    std::shared_ptr<Graph> graph;
    while (ctx.progress < ops && !ctx.crashed()) {
      const int n = ctx.progress++;
      // Every decision is drawn up front, so the draws do not depend on what the store did.
      const std::string& branch = branches[ctx.random().Uniform(branches.size())];
      const uint64_t roll = ctx.random().Uniform(100);
      const uint64_t pick = ctx.random().Next64();
      const bool with_links = ctx.random().Bernoulli(0.85);
      if (!graph) {
        Result<std::unique_ptr<Graph>> opened = Graph::Open(ctx.runtime());
        if (!opened.ok()) continue;
        graph = std::move(*opened);
      }
      GraphOpEntry op;
      op.op_id = ctx.name() + "." + std::to_string(n);
      op.branch = branch;
      Result<WriteRequest> request = BuildWrite(*graph, types, roll, pick, with_links, op);
      if (!request.ok()) continue;  // Nothing was written.
      const size_t index = model.graph_ops.size();
      model.graph_ops.push_back(std::move(op));
      ctx.ClearCreates();
      Result<WriteResult> written = engine::Write(*graph, *request);
      GraphOpEntry& entry = model.graph_ops[index];
      if (ctx.crashed()) {
        entry.outcome = OpOutcome::kCrashed;
        return;
      }
      entry.status = OutcomeCode(written.status());
      if (written.ok()) {
        entry.outcome = OpOutcome::kAcked;
        entry.commit_id = written->commit_id;
        entry.seq = written->seq;
      } else if (written.status().code() == Code::kPublicationInDoubt) {
        entry.outcome = OpOutcome::kInDoubt;
        CheckInDoubt(ctx, written.status(), model);
      } else {
        entry.outcome = OpOutcome::kFailed;
      }
    }
    // The Graph this writer ends with (a crashed incarnation's is gone with it).
    if (!ctx.crashed() && graph) model.graphs[ctx.name()] = graph;
  };
}

ActorBody GraphBranchAdmin(std::string branch, int ops) {
  return [branch, ops](ActorContext& ctx) {
    std::unique_ptr<Graph> graph;
    while (ctx.progress < ops && !ctx.crashed()) {
      ++ctx.progress;
      const bool create = ctx.random().Uniform(100) < 60;
      if (!graph) {
        Result<std::unique_ptr<Graph>> opened = Graph::Open(ctx.runtime());
        if (!opened.ok()) continue;
        graph = std::move(*opened);
      }
      if (create) {
        graph->CreateBranch(branch, "main", std::nullopt, ctx.name()).status().IgnoreError();
      } else {
        graph->DeleteBranch(branch, ctx.name()).IgnoreError();
      }
    }
  };
}

void CheckGraphLiveness(SimWorld& world, SimModel& model, std::vector<std::string>& v) {
  Result<std::unique_ptr<Graph>> fresh = Graph::Open(world.direct_runtime());
  if (!fresh.ok()) {
    v.push_back("graph: Open failed after the run: " + fresh.status().ToString());
    return;
  }
  Result<std::vector<commit::BranchInfo>> branches = (*fresh)->ListBranches();
  if (!branches.ok()) {
    v.push_back("graph: ListBranches failed after the run: " + branches.status().ToString());
    return;
  }
  const SimTypes types = BuildTypes();
  for (const auto& [name, graph] : model.graphs) {
    for (const commit::BranchInfo& b : *branches) {
      GraphOpEntry op;
      op.op_id = "final." + name + "." + b.branch;
      op.branch = b.branch;
      op.kind = "add-note";
      // The writer's Graph is used from this (non-actor) thread: its store calls go straight to
      // the backing store, with no faults.
      Result<WriteRequest> request = BuildWrite(*graph, types, 40, 0, true, op);
      if (!request.ok()) {
        v.push_back("graph: building the final write " + op.op_id + ": " +
                    request.status().ToString());
        continue;
      }
      Result<WriteResult> written = engine::Write(*graph, *request);
      if (!written.ok()) {
        v.push_back("graph: on the quiet store, " + name + "'s Graph could not write to live " +
                    "branch " + b.branch + ": " + written.status().ToString());
        continue;
      }
      op.outcome = OpOutcome::kAcked;
      op.status = "ok";
      op.commit_id = written->commit_id;
      op.seq = written->seq;
      model.graph_ops.push_back(std::move(op));
    }
  }
}

namespace {

// One stream life as the oracle sees it: its metadata and records, the model's fold and the
// engine's tables at every seq from its base.
struct GraphStream {
  commit::StreamMetadata meta;
  std::map<uint64_t, commit::Record> records;
  std::map<uint64_t, ModelGraph> folds;
  std::map<uint64_t, GraphRows> reads;
  bool done = false;
};

class GraphOracle {
 public:
  GraphOracle(SimWorld& world, const SimModel& model, std::vector<std::string>& v,
              OracleCounts& counts)
      : rt_(world.direct_runtime()), model_(model), v_(v), counts_(counts), tables_(rt_) {}

  void Run() {
    Result<std::unique_ptr<Graph>> graph = Graph::Open(rt_);
    if (!graph.ok()) return Fail("Open failed after the run: " + graph.status().ToString());
    graph_ = std::move(*graph);
    if (!Load()) return;
    for (const GraphOpEntry& op : model_.graph_ops) ops_[op.op_id] = &op;
    CheckRecords();
    for (auto& [key, s] : streams_) Fold(key);
  }

 private:
  void Fail(std::string what) { v_.push_back("graph: " + std::move(what)); }

  bool Load() {
    storage::ObjectStore& store = *rt_.store;
    auto metas = storage::ListAll(store, commit::kStreamsPrefix);
    if (!metas.ok()) return Fail("listing streams: " + metas.status().ToString()), false;
    for (const storage::ObjectMeta& m : *metas) {
      auto read = store.Get(m.name);
      if (!read.ok()) continue;  // The stream oracles report it.
      auto meta = commit::DecodeStreamMetadata(read->data, m.name);
      if (!meta.ok()) continue;
      GraphStream s;
      s.meta = *meta;
      auto objects = storage::ListAll(store, commit::RecordPrefix(meta->key));
      if (!objects.ok()) continue;
      for (const storage::ObjectMeta& o : *objects) {
        if (!o.name.ends_with(".commit")) continue;
        auto bytes = store.Get(o.name);
        if (!bytes.ok()) continue;
        auto record = commit::DecodeRecord(bytes->data, o.name);
        if (!record.ok()) continue;
        s.records.emplace(record->seq, std::move(*record));
      }
      streams_.emplace(meta->key, std::move(s));
    }
    return true;
  }

  // The operations a record carries, in order: a group commit's members by their actors, else
  // the record's own actor.
  static std::vector<std::string> OpsOf(const commit::Record& r) {
    if (r.members.empty()) return {r.actor.value_or("")};
    std::vector<std::string> out;
    for (const commit::BatchMember& m : r.members) out.push_back(m.actor.value_or(""));
    return out;
  }

  static std::string Where(const commit::Record& r) {
    return r.branch.value_or("?") + "@" + std::to_string(r.seq) + " (stream " + r.stream + ")";
  }

  // The op each commit record carries; acknowledged once where acknowledged, failed never,
  // otherwise at most once.
  void CheckRecords() {
    for (const auto& [key, s] : streams_) {
      for (const auto& [seq, r] : s.records) {
        if (r.kind != commit::RecordKind::kCommit || (seq == 0 && !s.meta.parent_stream)) continue;
        for (const std::string& actor : OpsOf(r)) {
          if (!ops_.count(actor)) {
            Fail("record " + Where(r) + " carries unknown operation '" + actor + "'");
            continue;
          }
          landed_[actor].push_back(&r);
        }
        if (!r.members.empty()) CheckMemberCounts(r);
      }
    }
    for (const GraphOpEntry& op : model_.graph_ops) {
      const std::vector<const commit::Record*>& at = landed_[op.op_id];
      std::string where;
      for (const commit::Record* r : at) where += " " + Where(*r);
      switch (op.outcome) {
        case OpOutcome::kAcked:
          if (at.size() != 1) {
            Fail("acknowledged " + op.op_id + " (" + op.kind + " at " + op.branch + "@" +
                 std::to_string(op.seq) + ") is present " + std::to_string(at.size()) +
                 " times:" + where);
          } else if (at[0]->seq != op.seq || at[0]->commit_id != op.commit_id ||
                     at[0]->branch.value_or("") != op.branch) {
            Fail("acknowledged " + op.op_id + " as " + op.commit_id + " at " + op.branch + "@" +
                 std::to_string(op.seq) + " but it landed as " + at[0]->commit_id + " at " +
                 Where(*at[0]));
          }
          break;
        case OpOutcome::kFailed:
          if (!at.empty()) {
            Fail(op.op_id + " (" + op.kind + ") failed with " + op.status +
                 " but is visible:" + where);
          }
          break;
        default:
          if (at.size() > 1) {
            Fail(op.op_id + " landed " + std::to_string(at.size()) + " times:" + where);
          }
          break;
      }
    }
  }

  // A group commit's record: each member's own counts are what its operation did, and together
  // they are what the record's change set attributes to node and edge tables.
  void CheckMemberCounts(const commit::Record& r) {
    uint64_t nodes = 0, edges = 0;
    for (const commit::BatchMember& m : r.members) {
      auto op = ops_.find(m.actor.value_or(""));
      if (op == ops_.end()) continue;
      const Json want = EffectCounts(op->second->effect);
      if (m.counts != want) {
        Fail("record " + Where(r) + " gives member " + op->first + " the counts " +
             m.counts.dump() + ", but its write did " + want.dump());
      }
      nodes += m.counts.value("affected_nodes", uint64_t{0});
      edges += m.counts.value("affected_edges", uint64_t{0});
    }
    if (!r.change_set) return;  // The change-set oracle reports it.
    uint64_t set_nodes = 0, set_edges = 0;
    for (const commit::TableChangeSet& t : r.change_set->tables) {
      const uint64_t n = t.inserted_count + t.updated_count + t.deleted_count;
      (t.table_key == kLinks ? set_edges : set_nodes) += n;
    }
    if (nodes != set_nodes || edges != set_edges) {
      Fail("record " + Where(r) + " of " + std::to_string(r.members.size()) +
           " members: their counts sum to " + std::to_string(nodes) + " nodes and " +
           std::to_string(edges) + " edges, its change set to " + std::to_string(set_nodes) +
           " and " + std::to_string(set_edges));
    }
  }

  // The model's fold and the engine's tables of one stream life, its parent's first: a branch
  // starts from its parent's at the fork seq.
  void Fold(const std::string& key) {
    GraphStream& s = streams_.at(key);
    if (s.done) return;
    s.done = true;
    ModelGraph fold;
    const GraphRows* previous = nullptr;
    if (s.meta.parent_stream) {
      auto parent = streams_.find(*s.meta.parent_stream);
      if (parent == streams_.end()) return;  // The stream oracles report it.
      Fold(parent->first);
      auto at = parent->second.folds.find(s.meta.base_seq());
      auto read = parent->second.reads.find(s.meta.base_seq());
      if (at == parent->second.folds.end()) return;
      fold = at->second;
      if (read != parent->second.reads.end()) previous = &read->second;
    }
    for (const auto& [seq, r] : s.records) {
      const std::string where = Where(r);
      if (r.kind != commit::RecordKind::kCommit) continue;  // A retire record ends the life.
      const std::vector<std::string> carried = OpsOf(r);
      for (const std::string& id : carried) {
        auto op = ops_.find(id);
        if (op != ops_.end()) fold.Apply(op->second->effect);
      }
      s.folds[seq] = fold;
      for (const TablePin& p : r.pins) {
        ++counts_.pins_opened;
        Result<std::shared_ptr<const table::TableVersion>> opened = tables_.Open(p);
        if (!opened.ok()) {
          Fail("record " + where + " pins " + p.table_key + " version " +
               std::to_string(p.staged_version) +
               ", which does not open: " + opened.status().ToString());
        }
      }
      for (const auto& [id, l] : fold.links) {
        if (!fold.items.count(l.src) || !fold.items.count(l.dst)) {
          Fail("the model's fold at " + where + " has link " + id + " with a missing endpoint (" +
               l.src + " -> " + l.dst + ")");
        }
      }
      Result<engine::Snapshot> snapshot = graph_->SnapshotAtCommit(r.commit_id);
      if (!snapshot.ok()) {
        Fail("SnapshotAtCommit(" + r.commit_id + ") at " + where +
             " failed: " + snapshot.status().ToString());
        previous = nullptr;
        continue;
      }
      if (r.parent_commit_id) {
        Result<engine::Snapshot> parent = graph_->SnapshotAtCommit(*r.parent_commit_id);
        if (!parent.ok()) {
          Fail("SnapshotAtCommit(" + *r.parent_commit_id + "), the parent of " + where +
               ", failed: " + parent.status().ToString());
        } else {
          CheckChangeSet(rt_, tables_, r, parent->state(), snapshot->state(), v_,
                         counts_.change_sets);
        }
      }
      Result<GraphRows> got = ReadGraph(types_, *snapshot);
      if (!got.ok()) {
        Fail("reading the tables at " + where + " failed: " + got.status().ToString());
        previous = nullptr;
        continue;
      }
      ++counts_.graph_seqs;
      const GraphRows want = fold.Render();
      if (!got->SameRows(want)) {
        Fail("the tables at " + where + " (" + r.actor.value_or("") +
             ") differ from the model's fold:" + Diff("items", got->items, want.items) +
             Diff("notes", got->notes, want.notes) + Diff("links", got->links, want.links));
      }
      // An op id shows in the data first at its own record: an acknowledged one where it was
      // acknowledged; a failed one never; nothing no operation wrote.
      for (const std::string& id : got->op_ids) {
        if (previous && previous->op_ids.count(id)) continue;
        auto written = ops_.find(id);
        if (written == ops_.end()) {
          Fail("the data at " + where + " holds '" + id +
               "', which no operation of the model wrote");
        } else if (written->second->outcome == OpOutcome::kFailed) {
          Fail(id + " (" + written->second->kind + ") failed with " + written->second->status +
               " but shows in the data at " + where);
        } else if (std::find(carried.begin(), carried.end(), id) == carried.end()) {
          Fail(id + " first shows in the data at " + where + ", a record of " + carried[0] +
               "; its own record is elsewhere");
        } else if (written->second->outcome == OpOutcome::kAcked && written->second->seq != seq) {
          Fail("acknowledged " + id + " at " + std::to_string(written->second->seq) +
               " first shows in the data at " + where);
        }
      }
      s.reads[seq] = std::move(*got);
      previous = &s.reads[seq];
    }
  }

  const storage::Runtime& rt_;
  const SimModel& model_;
  std::vector<std::string>& v_;
  OracleCounts& counts_;
  table::TableStore tables_;
  const SimTypes types_ = BuildTypes();
  std::unique_ptr<Graph> graph_;
  std::map<std::string, GraphStream> streams_;
  std::map<std::string, const GraphOpEntry*> ops_;
  std::map<std::string, std::vector<const commit::Record*>> landed_;
};

}  // namespace

void CheckGraphOracles(SimWorld& world, const SimModel& model, std::vector<std::string>& v,
                       OracleCounts& counts) {
  GraphOracle(world, model, v, counts).Run();
}

}  // namespace omnigraph::testing

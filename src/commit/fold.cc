#include "commit/fold.h"

#include <set>

#include "commit/names.h"

namespace omnigraph::commit {

namespace {
std::string IdentityText(const TableId& id) {
  return "(" + std::to_string(id.stable_table_id) + ", " + std::to_string(id.incarnation) + ")";
}
}  // namespace

Result<GraphState> GraphState::Genesis(const Record& genesis, std::string_view object) {
  if (genesis.seq != 0 || genesis.parent_commit_id.has_value()) {
    return Status(Code::kCorruption, "genesis record must have seq 0 and no parent",
                  std::string(object));
  }
  GraphState state;
  state.stream = genesis.stream;
  state.seq = 0;
  // Apply the genesis body onto an empty state positioned "before" seq 0.
  GraphState empty = state;
  Record body = genesis;
  body.seq = 0;
  Status s = [&] {
    for (const Registration& g : body.registrations) {
      if (empty.tables.count(g.identity())) {
        return Status(Code::kCorruption,
                      "genesis registers table " + IdentityText(g.identity()) + " twice",
                      std::string(object));
      }
      empty.tables[g.identity()] = TableState{g, TablePin{}, 0};
    }
    return Status::Ok();
  }();
  OMNIGRAPH_RETURN_IF_ERROR(s);
  for (const TablePin& p : body.pins) {
    auto it = empty.tables.find(p.table());
    if (it == empty.tables.end()) {
      return Status(Code::kCorruption, "genesis pins unregistered table " + IdentityText(p.table()),
                    std::string(object));
    }
    it->second.pin = p;
    it->second.pin_seq = 0;
  }
  empty.head_commit_id = genesis.commit_id;
  empty.head_generation = genesis.generation;
  empty.schema = genesis.schema;
  return empty;
}

GraphState GraphState::FromCheckpoint(const Checkpoint& c) {
  GraphState state;
  state.stream = c.stream;
  state.seq = c.seq;
  state.head_commit_id = c.head_commit_id;
  state.head_generation = c.head_generation;
  state.schema = c.schema;
  for (const CheckpointTable& t : c.tables) {
    state.tables[t.registration.identity()] = TableState{t.registration, t.pin, t.pin_seq};
  }
  return state;
}

Checkpoint GraphState::ToCheckpoint() const {
  Checkpoint c;
  c.stream = stream;
  c.seq = seq;
  c.head_commit_id = head_commit_id;
  c.head_generation = head_generation;
  c.schema = schema;
  for (const auto& [id, t] : tables) {
    c.tables.push_back({t.registration, t.pin, t.pin_seq, Json::object()});
  }
  return c;
}

Status GraphState::Apply(const Record& r, std::string_view object) {
  auto corrupt = [&](const std::string& why) {
    return Status(Code::kCorruption, "record " + std::to_string(r.seq) + " " + why,
                  std::string(object));
  };
  if (retired) return corrupt("follows the stream's retire record");
  if (r.seq != seq + 1) {
    return corrupt("does not follow seq " + std::to_string(seq));
  }
  if (r.stream != stream)
    return corrupt("names stream '" + r.stream + "', expected '" + stream + "'");
  if (r.parent_commit_id.value_or("") != head_commit_id) {
    // Either this record or the one before it is not what was published: name both, so that
    // whichever was damaged is named.
    return corrupt("has parent '" + r.parent_commit_id.value_or("null") +
                   "', but the commit before it (" + RecordName(stream, seq) + ") is '" +
                   head_commit_id + "'");
  }
  std::map<TableId, TableState> next = tables;
  for (const Registration& g : r.registrations) {
    if (next.count(g.identity())) {
      return corrupt("registers table " + IdentityText(g.identity()) + " that is already live");
    }
    next[g.identity()] = TableState{g, TablePin{}, r.seq};
  }
  for (const Rename& n : r.renames) {
    auto it = next.find(n.identity());
    if (it == next.end())
      return corrupt("renames unregistered table " + IdentityText(n.identity()));
    if (it->second.registration.table_key != n.from) {
      return corrupt("renames '" + n.from + "' but table " + IdentityText(n.identity()) + " is '" +
                     it->second.registration.table_key + "'");
    }
    it->second.registration.table_key = n.to;
    it->second.pin.table_key = n.to;
  }
  for (const Tombstone& t : r.tombstones) {
    if (next.erase(t.identity()) == 0) {
      return corrupt("retires unregistered table " + IdentityText(t.identity()));
    }
  }
  for (const TablePin& p : r.pins) {
    auto it = next.find(p.table());
    if (it == next.end()) return corrupt("pins unregistered table " + IdentityText(p.table()));
    it->second.pin = p;
    it->second.pin_seq = r.seq;
  }
  std::set<std::string> aliases;
  for (const auto& [id, t] : next) {
    if (!aliases.insert(t.registration.table_key).second) {
      return corrupt("leaves two live tables named '" + t.registration.table_key + "'");
    }
  }
  tables = std::move(next);
  seq = r.seq;
  head_commit_id = r.commit_id;
  head_generation = r.generation;
  if (r.kind == RecordKind::kRetire) {
    retired = true;
  } else {
    schema = r.schema;
  }
  return Status::Ok();
}

const TableState* GraphState::FindByKey(std::string_view table_key) const {
  for (const auto& [id, t] : tables) {
    if (t.registration.table_key == table_key) return &t;
  }
  return nullptr;
}

}  // namespace omnigraph::commit

// The graph writes the simulator's graph scenarios share (sim_graph.cc): the schema's types, a
// writer's read of a branch head, and one drawn write with its meaning in the model
// (docs/design/simulation.md "Graph writes"). Internal to src/testing; not thread-safe (one
// actor at a time).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/graph/graph.h"
#include "schema/catalog.h"
#include "testing/sim_model.h"

namespace omnigraph::testing {

inline constexpr const char* kItems = "node:Item";
inline constexpr const char* kNotes = "node:Note";
inline constexpr const char* kLinks = "edge:Link";

// The schema's types, built from the source without touching the store (ids are minted in source
// order, so they are the ones Graph::Init registered).
struct SimTypes {
  std::shared_ptr<const schema::Catalog> catalog;
  const schema::TypeDef* item = nullptr;
  const schema::TypeDef* note = nullptr;
  const schema::TypeDef* link = nullptr;
  uint32_t name_field = 0;
  uint32_t tag_field = 0;
  uint32_t text_field = 0;
};
SimTypes BuildTypes();
// The id of the Item named `name`.
std::string ItemId(const SimTypes& t, const std::string& name);

// What a writer read of the head before a write that needs existing rows.
struct HeadView {
  // What a strict write is planned on.
  std::optional<engine::Snapshot> snapshot;
  std::vector<std::pair<std::string, std::string>> items;  // (id, name)
  std::vector<std::string> notes;
  std::vector<GraphLink> links;
};
Result<HeadView> ReadHead(engine::Graph& graph, const SimTypes& t, const std::string& branch);

Result<table::ColumnBatch> ItemRows(const SimTypes& t, const std::string& id,
                                    const std::string& name, std::optional<std::string> tag);
Result<table::ColumnBatch> NoteRows(const SimTypes& t, const std::string& id);
Result<table::ColumnBatch> LinkRows(const SimTypes& t, const GraphLink& l);

// Builds one write of kind `roll` (0-99) and records its meaning in `op`. A write that needs
// existing rows reads the head first; `pick` chooses among them. An error means no write was
// attempted (the head could not be read, or there was nothing to act on).
Result<engine::WriteRequest> BuildWrite(engine::Graph& graph, const SimTypes& t, uint64_t roll,
                                        uint64_t pick, bool with_links, GraphOpEntry& op);

// What a write of `effect` reports as its own counts, as a mutation does: affected nodes (items
// and notes added, removed or retagged) and edges.
Json EffectCounts(const GraphEffect& effect);

}  // namespace omnigraph::testing

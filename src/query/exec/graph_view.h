// GraphView: the read interface the query executor runs against — one consistent view of a
// graph (a snapshot): its schema catalog and one table version per node and edge type.
//
// The engine adapts its Snapshot to this interface (engine/read/query.h); tests may supply their
// own. Implementations must be safe to call from one thread at a time at least; the executor calls
// them from the thread that runs the query.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "schema/catalog.h"
#include "schema/ir.h"
#include "table/table_version.h"

namespace omnigraph::query {

class GraphView {
 public:
  virtual ~GraphView() = default;
  virtual const schema::Catalog& catalog() const = 0;
  // The version of the table of a node or edge type of catalog(). NotFound when it has none.
  virtual Result<std::shared_ptr<const table::TableVersion>> Table(
      const schema::TypeDef& type) const = 0;
  // Distinguishes graphs in a shared ExecCache (table pins are unique only within one graph):
  // the graph id, or any string unique to the graph root.
  virtual std::string cache_scope() const = 0;
};

}  // namespace omnigraph::query

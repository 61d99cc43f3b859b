// Write-time @embed (docs/design/query-execution.md "Embeddings"): the vector of a property
// declared `@embed("source")` is computed from its source text through the embedding endpoint
// (query/embedder.h) when a write leaves it null and the text is not null — a load line without
// the vector, an insert that assigns only the text, an update of the text (which clears the old
// vector, query/mutation.cc). A vector the write gives itself is kept. Stateless functions; the
// embedder is the caller's.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "query/embedder.h"
#include "schema/ir.h"
#include "schema/value.h"

namespace omnigraph::engine {

// True when `type` declares an @embed property.
bool HasEmbeds(const schema::TypeDef& type);

// Fills every @embed vector of `rows` rows of `type` that is null while its source text is not,
// `kEmbedBatchInputsMax` texts per request. `at(row, property)` is the value of a property (an
// index into type.properties); `label(row)` names a row in errors ("line 4", "Chunk c1"). The
// embedder's errors (query/embedder.h) come back with the labels of the rows of the failed
// request before them; on error the rows may be partly filled and must not be written.
Status FillEmbeddings(query::LazyEmbedder& embedder, const schema::TypeDef& type, size_t rows,
                      const std::function<schema::Value&(size_t row, size_t property)>& at,
                      const std::function<std::string(size_t row)>& label);

}  // namespace omnigraph::engine

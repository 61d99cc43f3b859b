// The answer of a keyed write that failed before publishing (engine/write/write.cc), shared by the
// write path and group commit (engine/write/write_batch.cc; docs/design/idempotency.md "The
// fence"). Stateless; as thread-safe as the KeyFence it is given (one writer's).
#pragma once

#include <optional>

#include "engine/write/idempotency.h"
#include "engine/write/write.h"

namespace omnigraph::engine {

// `failed`, the error of a write that published nothing, unless the write is keyed (`fence` set)
// and a record already names its key — a retry of a write that landed after its caller last
// looked, whose rows now fail validation against themselves: then that record's answer. Costs
// the fence's Published reads, only on failure.
Result<WriteResult> AnsweredByKey(std::optional<KeyFence>& fence, const WriteRequest& request,
                                  const Status& failed);

}  // namespace omnigraph::engine

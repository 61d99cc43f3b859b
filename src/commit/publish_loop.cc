// The one publish loop (commit/publish_loop.h; docs/design/publish-loop.md).
#include "commit/publish_loop.h"

namespace omnigraph::commit {

Result<std::optional<PublishResult>> RunPublishLoop(Stream& stream,
                                                    std::shared_ptr<const GraphState> base,
                                                    PublishLoop& loop) {
  using Answer = std::optional<PublishResult>;
  for (int attempt = 1;; ++attempt) {
    // 1. The captured head is usable (no reads when warm).
    if (loop.check) {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool go, loop.check(base));
      if (!go) return Answer();
    } else {
      OMNIGRAPH_RETURN_IF_ERROR(CheckCaptured(loop.policy, *base));
    }
    // 2. Stage against (stream, N), holding no lock, while the gap guard looks at N + 2.
    bool stopped = false;
    Result<Prepared> prepared =
        stream.Prepare(*base, [&](const GraphState& b) -> Result<RecordContent> {
          OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<RecordContent> content, loop.stage(b));
          if (!content) {
            stopped = true;
            return RecordContent{};
          }
          return *std::move(content);
        });
    if (!prepared.ok()) {
      if (!loop.refused) return prepared.status();
      OMNIGRAPH_RETURN_IF_ERROR(loop.refused(prepared.status()));
      return Answer();
    }
    if (stopped) return Answer();
    // 3. The gate (a key's fence), then one conditional create of N + 1.
    Gate gate = Gate::kPublish;
    if (loop.gate) {
      OMNIGRAPH_ASSIGN_OR_RETURN(gate, loop.gate(*base, prepared->content));
    }
    if (gate == Gate::kAnswered) return Answer();
    std::shared_ptr<const GraphState> head;
    if (gate == Gate::kPublish) {
      OMNIGRAPH_ASSIGN_OR_RETURN(PublishAttempt tried,
                                 stream.TryPublish(base, *prepared, loop.meta));
      if (tried.won) {
        tried.won->attempts = attempt;
        return Answer(*std::move(tried.won));
      }
      head = std::move(tried.head);
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(head, stream.ReadLatest());
    }
    // 4. Another writer took N + 1: re-prepare on the refreshed head, or a typed conflict.
    if (loop.lost) {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool again, loop.lost(*base, *head, attempt));
      if (!again) return Answer();
    } else {
      OMNIGRAPH_RETURN_IF_ERROR(AfterLostRace(loop.policy, *base, *head, attempt));
      BackoffAfterLostRace(stream.runtime(), attempt);
    }
    base = std::move(head);
  }
}

}  // namespace omnigraph::commit

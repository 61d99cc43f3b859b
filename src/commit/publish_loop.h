// The one publish loop (docs/design/publish-loop.md; commit-record.md "Publishing"): capture →
// check → prepare (staging beside the gap guard) → gate → one conditional create → on a lost race
// the typed conflict or re-prepare → on a lost acknowledgement the read back (inside TryPublish).
// Every writer publishes through it: Stream::Publish, the engine's writes (a single write is a
// group-commit batch of one) and merges. commit/ may not include table/ or engine/, so what is
// particular to a writer is a callback; each is optional except `stage`.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "commit/stream.h"

namespace omnigraph::commit {

// What happens just before the conditional create.
enum class Gate {
  kPublish,   // create the record
  kAnswered,  // stop without publishing: the caller's closure holds the answer (a replay)
  kCatchUp,   // publish nothing now: read the latest head and continue as after a lost race
};

struct PublishLoop {
  // What a lost race means when `lost` is unset, and what CheckCaptured checks when `check` is.
  PublishPolicy policy;
  // The record's branch and actor (`stage` is not used). Read at each create, so a callback may
  // change it between attempts (a batch's actor depends on its members).
  PublishRequest meta;
  // Per attempt, before staging. Unset: CheckCaptured(policy, base). false: stop without
  // publishing (the caller's closure holds the answer, e.g. a merge already up to date, or a
  // batch whose last member writes alone from `base`).
  std::function<Result<bool>(const std::shared_ptr<const GraphState>& base)> check;
  // Staging against `base`, beside the gap guard's HEAD of base.seq + 2. nullopt: stop without
  // publishing (a merge's conflicts).
  std::function<Result<std::optional<RecordContent>>(const GraphState& base)> stage;
  // Staging or the guard failed with `failed`. Unset: the loop ends with it. Otherwise returns
  // the error to end with, or Ok when the caller answered otherwise (it stops the loop).
  std::function<Status(const Status& failed)> refused;
  // Just before the create, with the content that will be published (it may add to it).
  std::function<Result<Gate>(const GraphState& base, RecordContent& content)> gate;
  // After a lost race or a catch-up, `head` being the refreshed head. Unset: AfterLostRace's
  // verdict, then a backoff. Otherwise it decides and backs off itself: true to go again from
  // `head`, false to stop without publishing, or the typed conflict.
  std::function<Result<bool>(const GraphState& base, const GraphState& head, int attempt)> lost;
};

// Runs the loop from `base` (the captured head). The won publication (its `attempts` set), or
// nullopt when a callback stopped it. Errors of the callbacks, of Prepare (through `refused`),
// and of TryPublish (PublicationInDoubt, a gap's Corruption, storage errors) end it as they are;
// nothing is retried here beyond the policy.
Result<std::optional<PublishResult>> RunPublishLoop(Stream& stream,
                                                    std::shared_ptr<const GraphState> base,
                                                    PublishLoop& loop);

}  // namespace omnigraph::commit

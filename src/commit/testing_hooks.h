// TEST ONLY: switches that plant known bugs in the commit protocol, so the deterministic
// simulator (src/testing, tests/sim; docs/design/simulation.md) can prove it catches them.
//
// Every switch defaults to off, and with every switch off each guarded code path behaves exactly
// as it would without the hook. Nothing outside src/testing and tests/sim may turn one on. The
// switches are process-wide atomics, so a process that plants a bug must run one simulation at a
// time. Thread-safe.
#pragma once

#include <atomic>

namespace omnigraph::commit {

struct PlantedBugs {
  // Publishing: treat "exists" from the conditional create as a lost race without reading the
  // record back (a retried request of our own that landed first is then mistaken for a rival).
  std::atomic<bool> skip_readback_on_exists{false};
  // Publishing: after an Unknown create, read the record back once and, when it is absent,
  // conclude the create had no effect and fail the publish (the request may still land).
  std::atomic<bool> absent_after_unknown_means_no_effect{false};
  // Reading: use a checkpoint that parses without checking its seq, stream and head against its
  // name and the record after it.
  std::atomic<bool> accept_checkpoint_unvalidated{false};
  // Retention: root only the pins of the oldest retained record itself instead of its fold.
  std::atomic<bool> retention_uses_record_pins{false};
  // Retention: do not root merge bases (a later merge of two live branches may find its base's
  // table versions reclaimed).
  std::atomic<bool> retention_ignores_merge_bases{false};
  // Reading and publishing: take a missing record for the end of the stream (the behaviour before
  // D21): a cold read re-probes from the base and serves the records before the gap, no lookahead
  // is made, and a publish may create a record in the gap.
  std::atomic<bool> gap_is_end{false};
  // The write path's change set: record an upsert's ids that the base already holds as inserted
  // instead of updated.
  std::atomic<bool> change_set_upserts_as_inserts{false};
  // Merge: the merge-base search follows first parents only, ignoring merged-parent links.
  std::atomic<bool> merge_base_first_parent_only{false};
  // Merge: an entity both sides changed differently takes the source's row, no conflict.
  std::atomic<bool> merge_source_wins{false};
  // Merge: a table both sides changed takes the source's version whole (the target's changes to
  // it are lost).
  std::atomic<bool> merge_adopts_source_table{false};
  // Group commit: a member that fails validation together with the members before it is
  // answered with its error but its rows stay in the batch's record.
  std::atomic<bool> group_commit_keeps_failed_member{false};
  // Idempotency: the key fence never finds the record that names its key — a retry's look-up
  // answers "not yet", and a key fenced to a seq the head has passed moves on without reading
  // whether the record there names it (a retry of a write that landed writes it again).
  std::atomic<bool> key_fence_ignores_record{false};

  void Reset() {
    skip_readback_on_exists = false;
    absent_after_unknown_means_no_effect = false;
    accept_checkpoint_unvalidated = false;
    retention_uses_record_pins = false;
    retention_ignores_merge_bases = false;
    gap_is_end = false;
    change_set_upserts_as_inserts = false;
    merge_base_first_parent_only = false;
    merge_source_wins = false;
    merge_adopts_source_table = false;
    group_commit_keeps_failed_member = false;
    key_fence_ignores_record = false;
  }
};

// The process-wide switches (all off unless a simulation test turned one on).
PlantedBugs& TestingHooks();

}  // namespace omnigraph::commit

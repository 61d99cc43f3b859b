// Pieces the cluster verbs share (cluster.cc, apply.cc, observe.cc).
#pragma once

#include <functional>
#include <string>

#include "base/json.h"
#include "base/status.h"
#include "cluster/plan.h"

namespace omnigraph::cluster {

// Runs `body` holding the cluster lock (when state.lock is on) and releases it after; the
// report gains lock_acquired and acquired_lock_id.
Result<Json> LockedRun(Session& s, const std::string& operation,
                       const std::function<Result<Json>()>& body);
// {locked, lock_id, lock_operation, lock_holder, lock_pid, lock_created_at_micros,
// lock_age_seconds} of the lock as observed now.
Json LockObservation(Session& s);
// The plan's report: changes with dispositions, summary, approvals_required, warnings.
Json PlanReport(Session& s);

}  // namespace omnigraph::cluster

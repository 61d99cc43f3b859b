// SimWorld: the deterministic world the simulator runs the real commit code in
// (docs/design/simulation.md).
//
// A world owns a simulated clock, a seeded Random, an in-memory backing store and a set of actors.
// Each actor is a thread, but only one thread ever runs at a time: every ObjectStore call an actor
// makes through the world's SimStore parks the actor, and the scheduler (the thread that called
// Run) picks which parked actor proceeds next, by the seed. The picked actor performs its call —
// with a fault decided from the seed — and runs on until its next store call. Between calls the
// scheduler may land deferred writes (requests applied after their caller was answered) and run
// the scenario's "chaos" step (stale hints, missing or foreign checkpoints). Because actors
// interact only through the store and every random draw comes from the seed, the same
// (scenario, seed) replays byte for byte; the trace hash (xxhash64 over every scheduled call and
// its outcome) proves it.
//
// Crashes: an actor may crash at its k-th durable (mutating) write. The write is applied or not
// (seeded), the call returns a Cancelled status, and every later store call of that incarnation
// fails at once without touching the store, so the actor's code unwinds. The world then starts a
// fresh incarnation of the actor, which must reopen everything (its body is called again).
//
// Waiting: an actor that waits for another (a member of a group commit waiting for its leader)
// yields its turn through the Yielder the world installs on every actor thread; it stays
// runnable and checks again each time it is picked.
//
// Thread-safety: the public methods other than the ActorContext ones are called by the thread
// that owns the world. Store calls from threads that are not actors (setup, oracles, chaos) go
// straight to the backing store with no faults.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/executor.h"
#include "base/random.h"
#include "base/yield.h"
#include "storage/memory_store.h"
#include "storage/uri.h"

namespace omnigraph::testing {

// Store calls a run may schedule before it is declared stuck.
inline constexpr uint64_t kSimStepsMax = 200'000;
// Crashes (and so fresh incarnations) per actor per run.
inline constexpr int kSimCrashesPerActorMax = 3;

// Per-call fault probabilities, drawn per seed by the scenario (swarm testing).
struct FaultProfile {
  // Any call fails with Transient and has no effect.
  double transient = 0;
  // A mutating call takes effect, then returns Unknown (a lost acknowledgement).
  double unknown_after_effect = 0;
  // A mutating call returns Unknown at once and takes effect later (or never, if a conditional
  // create finds the name taken by then).
  double deferred = 0;
  // After an Unknown, the actor's next `burst_length` mutating calls also return Unknown.
  double unknown_burst = 0;
  int burst_length = 8;
  // Each scheduling step lands one pending deferred write with this probability.
  double deferred_landing = 0.2;
  // A deferred write lands at the latest this much simulated time after it was answered: the
  // store's bound on a request that outlived its answer, which SimStore reports as its
  // UnknownOutcomeWindowMicros (decision 124). Overdue writes land before the next call runs.
  int64_t deferred_lifetime_micros = 50'000;
  // Each incarnation of an actor crashes at a durable write with this probability.
  double crash = 0;
  // The k of "crash at the k-th durable write" is uniform in [1, crash_write_max].
  int crash_write_max = 12;
  // Each scheduling step runs the scenario's chaos step with this probability.
  double chaos = 0;
  // Simulated time each scheduled call takes: uniform in [0, latency_micros_max].
  int64_t latency_micros_max = 2000;

  std::string ToString() const;
};

// How a conditional create by an actor ended, for the "in doubt" oracle.
struct CreateAttempt {
  std::string name;
  char outcome = '?';  // 'C' created, 'E' exists, 'U' unknown, 'T' transient, 'X' crashed.
};

class SimWorld;

// What an actor's body sees. Only the actor's own thread uses it, while it holds the turn.
class ActorContext {
 public:
  int id() const { return id_; }
  const std::string& name() const { return name_; }
  int incarnation() const { return incarnation_; }
  // The actor's runtime: the world's SimStore and clock, its own forked Random, an inline executor.
  const storage::Runtime& runtime() const { return runtime_; }
  // The actor's own decisions (which op, which branch); independent of the Random in runtime().
  Random& random() { return decisions_; }
  // True once this incarnation crashed: the body must return without relying on anything.
  bool crashed() const { return crashed_; }
  // Conditional creates since the last ClearCreates() (the in-doubt oracle reads them).
  const std::vector<CreateAttempt>& creates() const { return creates_; }
  void ClearCreates() { creates_.clear(); }
  // Progress that survives a crash (the body decides what it means, e.g. the next op index).
  int progress = 0;

 private:
  friend class SimWorld;
  friend class SimStore;
  int id_ = 0;
  std::string name_;
  int incarnation_ = 0;
  storage::Runtime runtime_;
  Random decisions_{0};
  bool crashed_ = false;
  int crashes_ = 0;
  int durable_writes_ = 0;
  int crash_at_ = 0;  // 0: this incarnation does not crash.
  bool crash_applies_ = false;
  int burst_left_ = 0;
  std::vector<CreateAttempt> creates_;
};

using ActorBody = std::function<void(ActorContext&)>;
using ChaosFn = std::function<void(storage::ObjectStore& store, Random& random, SimWorld& world)>;

struct RunStats {
  uint64_t steps = 0;
  uint64_t faults = 0;
  uint64_t deferred_landed = 0;
  uint64_t crashes = 0;
  uint64_t chaos = 0;
  bool stuck = false;
};

class SimWorld {
 public:
  SimWorld(uint64_t seed, FaultProfile faults);
  ~SimWorld();
  SimWorld(const SimWorld&) = delete;
  SimWorld& operator=(const SimWorld&) = delete;

  // The raw backing store and a runtime over it (no scheduling, no faults): setup and oracles.
  storage::MemoryStore& backing() { return *backing_; }
  const storage::Runtime& direct_runtime() const { return direct_; }
  ManualClock& clock() { return *clock_; }
  // The world's generator (scenario setup draws from it before Run).
  Random& random() { return random_; }

  // Adds an actor; its body runs (again after each crash) once Run starts.
  void AddActor(std::string name, ActorBody body);
  void SetChaos(ChaosFn chaos) { chaos_ = std::move(chaos); }

  // Runs every actor to completion, then lands every write still deferred. Returns the stats;
  // stats.stuck when kSimStepsMax was reached (the remaining calls then fail fast).
  RunStats Run();
  // Lands, in a seeded order, every deferred write to `name` (the damage scenario, before it
  // damages that object: a request in flight is not older than an operator's action).
  void LandInFlight(const std::string& name);

  // Mixes an event into the trace hash (scenarios add their own observations).
  void Trace(std::string_view event);
  uint64_t trace_hash() const { return trace_hash_; }
  // The last few trace events, for failure reports.
  std::vector<std::string> trace_tail() const { return {tail_.begin(), tail_.end()}; }

 private:
  friend class SimStore;
  friend class ActorYielder;
  struct Actor {
    ActorBody body;
    std::unique_ptr<ActorContext> ctx;
    std::thread thread;
    bool done = false;
  };
  struct DeferredWrite {
    std::string what;
    std::string name;
    std::function<void()> apply;
    int64_t deadline = 0;  // Simulated time by which it has landed.
  };
  enum class Fault { kNone, kTransient, kUnknownAfter, kDeferred, kCrashBefore, kCrashAfter };

  void ActorMain(int id);
  void NewIncarnation(ActorContext& ctx);
  // Called by an actor thread before a store call: parks until picked. Returns the fault.
  Fault Enter(ActorContext& ctx, bool mutating, std::string_view op, std::string_view name);
  // Gives up the turn of a waiting actor (base/yield.h) until the scheduler picks it.
  void Park(ActorContext& ctx);
  void Defer(std::string what, std::string name, std::function<void()> apply);
  void LandOne(size_t index);
  // Lands, in the order they were sent, the deferred writes whose deadline has passed.
  void LandOverdue();
  // The context of the calling thread when it is one of this world's actors, else null.
  ActorContext* Current();

  const uint64_t seed_;
  const FaultProfile faults_;
  Random random_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<storage::MemoryStore> backing_;
  std::shared_ptr<storage::ObjectStore> sim_store_;
  storage::Runtime direct_;
  ChaosFn chaos_;

  std::mutex mu_;
  std::condition_variable cv_;
  int turn_ = -1;  // The actor that may run; -1 = the scheduler.
  bool stuck_ = false;
  std::vector<Actor> actors_;
  std::vector<DeferredWrite> deferred_;
  RunStats stats_;
  uint64_t trace_hash_ = 0;
  std::deque<std::string> tail_;
};

}  // namespace omnigraph::testing

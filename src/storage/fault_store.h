// FaultStore: an ObjectStore wrapper that injects the failures real stores produce, scripted by
// rules or drawn from a seed (docs/design/storage.md "Wrappers").
//
// Fault kinds:
//   - kTransientBeforeEffect: the call fails with Transient and has no effect.
//   - kUnknownAfterEffect: a mutating call takes effect, then reports Unknown (a lost
//     acknowledgement). On a read, the read happens and Transient is reported.
//   - kUnknownDeferredEffect: a mutating call reports Unknown at once and takes effect later, just
//     before the `deferred_ops`-th following call on this store (or at ApplyDeferred()), so a
//     read-back can find it absent and see it land afterwards. On a read it acts as
//     kTransientBeforeEffect.
//   - kLatency: the call is delayed by `latency_micros` on the given Clock, then proceeds.
// Rules fire in the order added; the first matching rule with firings left applies.
// Thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "base/clock.h"
#include "base/random.h"
#include "storage/object_store.h"

namespace omnigraph::storage {

enum class Op : uint32_t {
  kGet = 1,
  kHead = 2,
  kPut = 4,
  kPutIfAbsent = 8,
  kPutIfMatch = 16,
  kList = 32,
  kDelete = 64,
};
using OpMask = uint32_t;
inline constexpr OpMask Mask(Op op) { return static_cast<OpMask>(op); }
inline constexpr OpMask kAllOps = 127;
inline constexpr OpMask kMutatingOps =
    Mask(Op::kPut) | Mask(Op::kPutIfAbsent) | Mask(Op::kPutIfMatch) | Mask(Op::kDelete);

enum class FaultKind {
  kTransientBeforeEffect,
  kUnknownAfterEffect,
  kUnknownDeferredEffect,
  kLatency,
};

struct FaultRule {
  OpMask ops = kAllOps;
  // Only names starting with this (List matches on its prefix option).
  std::string name_prefix;
  FaultKind kind = FaultKind::kTransientBeforeEffect;
  // Let this many matching calls through before firing.
  int skip = 0;
  // Fire this many times; -1 = every matching call.
  int times = 1;
  int64_t latency_micros = 0;
  int deferred_ops = 1;
};

// Per-call probabilities for seeded fault injection (the simulator).
struct SeededFaults {
  double transient = 0;
  double unknown_after_effect = 0;
  double deferred = 0;
  double latency = 0;
  int64_t latency_micros_max = 0;
  int deferred_ops_max = 3;
  OpMask ops = kAllOps;
};

class FaultStore final : public ObjectStore {
 public:
  // `clock` (for latency) must outlive the store; null means the system clock.
  explicit FaultStore(std::shared_ptr<ObjectStore> inner, Clock* clock = nullptr);

  void AddRule(FaultRule rule);
  void SetSeeded(const SeededFaults& faults, uint64_t seed);
  // Removes every rule and seeded fault (pending deferred writes stay pending).
  void ClearFaults();
  // Applies every pending deferred write now; returns how many.
  size_t ApplyDeferred();
  size_t pending_deferred() const;
  uint64_t faults_injected() const;

  Result<GetResult> Get(std::string_view name,
                        std::optional<ByteRange> range = std::nullopt) override;
  // Faults as a Get (Op::kGet), then asks the inner store's GetShared.
  Result<SharedGetResult> GetShared(std::string_view name,
                                    std::optional<ByteRange> range = std::nullopt) override;
  Result<ObjectMeta> Head(std::string_view name) override;
  Status Put(std::string_view name, std::string_view data) override;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override;
  Result<std::string> PutIfMatch(std::string_view name, std::string_view data,
                                 std::string_view etag) override;
  Result<ListPage> List(const ListOptions& options) override;
  Status Delete(std::string_view name) override;
  std::string Describe() const override { return inner_->Describe(); }
  int64_t UnknownOutcomeWindowMicros() const override {
    return inner_->UnknownOutcomeWindowMicros();
  }
  bool Remote() const override { return inner_->Remote(); }

 private:
  struct Decision {
    bool fire = false;
    FaultKind kind = FaultKind::kTransientBeforeEffect;
    int64_t latency_micros = 0;
    int deferred_ops = 1;
  };
  struct Deferred {
    int remaining;
    std::function<void()> apply;
  };

  // Applies due deferred writes, then decides whether this call faults.
  Decision Begin(Op op, std::string_view name);
  // Runs a mutating call `effect` under `decision`; `effect` returns the inner call's status.
  Status RunMutation(const Decision& d, Op op, std::string_view name,
                     std::function<Status()> effect);
  Status ReadFault(const Decision& d, std::string_view name);

  std::shared_ptr<ObjectStore> inner_;
  Clock* clock_;
  mutable std::mutex mu_;
  std::vector<FaultRule> rules_;
  std::vector<int> rule_seen_;
  std::vector<int> rule_fired_;
  bool seeded_ = false;
  SeededFaults seeded_faults_;
  std::unique_ptr<Random> random_;
  std::deque<Deferred> deferred_;
  uint64_t injected_ = 0;
};

}  // namespace omnigraph::storage

#include "storage/fault_store.h"

namespace omnigraph::storage {

namespace {
std::string_view OpName(Op op) {
  switch (op) {
    case Op::kGet: return "get";
    case Op::kHead: return "head";
    case Op::kPut: return "put";
    case Op::kPutIfAbsent: return "put_if_absent";
    case Op::kPutIfMatch: return "put_if_match";
    case Op::kList: return "list";
    case Op::kDelete: return "delete";
  }
  return "op";
}
}  // namespace

FaultStore::FaultStore(std::shared_ptr<ObjectStore> inner, Clock* clock)
    : inner_(std::move(inner)), clock_(clock ? clock : SystemClock::Default()) {}

void FaultStore::AddRule(FaultRule rule) {
  std::lock_guard lock(mu_);
  rules_.push_back(std::move(rule));
  rule_seen_.push_back(0);
  rule_fired_.push_back(0);
}

void FaultStore::SetSeeded(const SeededFaults& faults, uint64_t seed) {
  std::lock_guard lock(mu_);
  seeded_ = true;
  seeded_faults_ = faults;
  random_ = std::make_unique<Random>(seed);
}

void FaultStore::ClearFaults() {
  std::lock_guard lock(mu_);
  rules_.clear();
  rule_seen_.clear();
  rule_fired_.clear();
  seeded_ = false;
}

size_t FaultStore::ApplyDeferred() {
  std::deque<Deferred> due;
  {
    std::lock_guard lock(mu_);
    due.swap(deferred_);
  }
  for (Deferred& d : due) d.apply();
  return due.size();
}

size_t FaultStore::pending_deferred() const {
  std::lock_guard lock(mu_);
  return deferred_.size();
}

uint64_t FaultStore::faults_injected() const {
  std::lock_guard lock(mu_);
  return injected_;
}

FaultStore::Decision FaultStore::Begin(Op op, std::string_view name) {
  std::vector<std::function<void()>> due;
  Decision decision;
  {
    std::lock_guard lock(mu_);
    for (auto it = deferred_.begin(); it != deferred_.end();) {
      if (--it->remaining <= 0) {
        due.push_back(std::move(it->apply));
        it = deferred_.erase(it);
      } else {
        ++it;
      }
    }
    for (size_t i = 0; i < rules_.size(); ++i) {
      const FaultRule& rule = rules_[i];
      if ((rule.ops & Mask(op)) == 0) continue;
      if (name.compare(0, rule.name_prefix.size(), rule.name_prefix) != 0) continue;
      if (rule.times >= 0 && rule_fired_[i] >= rule.times) continue;
      if (rule_seen_[i]++ < rule.skip) continue;
      ++rule_fired_[i];
      decision = {true, rule.kind, rule.latency_micros, rule.deferred_ops};
      break;
    }
    if (!decision.fire && seeded_ && (seeded_faults_.ops & Mask(op)) != 0) {
      double p = random_->NextDouble();
      const SeededFaults& f = seeded_faults_;
      if (p < f.transient) {
        decision = {true, FaultKind::kTransientBeforeEffect, 0, 1};
      } else if (p < f.transient + f.unknown_after_effect) {
        decision = {true, FaultKind::kUnknownAfterEffect, 0, 1};
      } else if (p < f.transient + f.unknown_after_effect + f.deferred) {
        int ops = static_cast<int>(random_->Range(1, std::max(1, f.deferred_ops_max)));
        decision = {true, FaultKind::kUnknownDeferredEffect, 0, ops};
      } else if (p < f.transient + f.unknown_after_effect + f.deferred + f.latency) {
        decision = {true, FaultKind::kLatency, random_->Range(0, f.latency_micros_max), 1};
      }
    }
    if (decision.fire) ++injected_;
  }
  for (auto& apply : due) apply();
  if (decision.fire && decision.kind == FaultKind::kLatency) {
    clock_->SleepMicros(decision.latency_micros);
    decision.fire = false;  // Latency only delays; the call then proceeds normally.
  }
  return decision;
}

Status FaultStore::RunMutation(const Decision& d, Op op, std::string_view name,
                               std::function<Status()> effect) {
  const std::string what = "injected fault on " + std::string(OpName(op));
  switch (d.kind) {
    case FaultKind::kTransientBeforeEffect:
      return Status(Code::kTransient, what + ": failed before effect", std::string(name));
    case FaultKind::kUnknownAfterEffect:
      effect().IgnoreError();
      return Status(Code::kUnknown, what + ": applied, acknowledgement lost", std::string(name));
    case FaultKind::kUnknownDeferredEffect: {
      std::lock_guard lock(mu_);
      deferred_.push_back(
          {d.deferred_ops, [effect = std::move(effect)] { effect().IgnoreError(); }});
      return Status(Code::kUnknown, what + ": outcome unknown (applies later)", std::string(name));
    }
    case FaultKind::kLatency: break;
  }
  return effect();
}

Status FaultStore::ReadFault(const Decision&, std::string_view name) {
  return Status(Code::kTransient, "injected fault on read", std::string(name));
}

Result<GetResult> FaultStore::Get(std::string_view name, std::optional<ByteRange> range) {
  Decision d = Begin(Op::kGet, name);
  if (d.fire) return ReadFault(d, name);
  return inner_->Get(name, range);
}

Result<SharedGetResult> FaultStore::GetShared(std::string_view name,
                                              std::optional<ByteRange> range) {
  Decision d = Begin(Op::kGet, name);
  if (d.fire) return ReadFault(d, name);
  return inner_->GetShared(name, range);
}

Result<ObjectMeta> FaultStore::Head(std::string_view name) {
  Decision d = Begin(Op::kHead, name);
  if (d.fire) return ReadFault(d, name);
  return inner_->Head(name);
}

Result<ListPage> FaultStore::List(const ListOptions& options) {
  Decision d = Begin(Op::kList, options.prefix);
  if (d.fire) return ReadFault(d, options.prefix);
  return inner_->List(options);
}

Status FaultStore::Put(std::string_view name, std::string_view data) {
  Decision d = Begin(Op::kPut, name);
  if (!d.fire) return inner_->Put(name, data);
  std::shared_ptr<ObjectStore> inner = inner_;
  return RunMutation(d, Op::kPut, name, [inner, n = std::string(name), b = std::string(data)] {
    return inner->Put(n, b);
  });
}

Result<bool> FaultStore::PutIfAbsent(std::string_view name, std::string_view data) {
  Decision d = Begin(Op::kPutIfAbsent, name);
  if (!d.fire) return inner_->PutIfAbsent(name, data);
  std::shared_ptr<ObjectStore> inner = inner_;
  Status s =
      RunMutation(d, Op::kPutIfAbsent, name, [inner, n = std::string(name), b = std::string(data)] {
        return inner->PutIfAbsent(n, b).status();
      });
  if (s.ok()) return Internal("put_if_absent fault path produced no outcome");
  return s;
}

Result<std::string> FaultStore::PutIfMatch(std::string_view name, std::string_view data,
                                           std::string_view etag) {
  Decision d = Begin(Op::kPutIfMatch, name);
  if (!d.fire) return inner_->PutIfMatch(name, data, etag);
  std::shared_ptr<ObjectStore> inner = inner_;
  Status s = RunMutation(d, Op::kPutIfMatch, name,
                         [inner, n = std::string(name), b = std::string(data),
                          e = std::string(etag)] { return inner->PutIfMatch(n, b, e).status(); });
  if (s.ok()) return Internal("put_if_match fault path produced no outcome");
  return s;
}

Status FaultStore::Delete(std::string_view name) {
  Decision d = Begin(Op::kDelete, name);
  if (!d.fire) return inner_->Delete(name);
  std::shared_ptr<ObjectStore> inner = inner_;
  return RunMutation(d, Op::kDelete, name,
                     [inner, n = std::string(name)] { return inner->Delete(n); });
}

}  // namespace omnigraph::storage

#include "testing/sim_world.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "base/hash.h"

namespace omnigraph::testing {

namespace {

// The actor the current thread runs, and its world (null on the scheduler and other threads).
thread_local SimWorld* tls_world = nullptr;
thread_local ActorContext* tls_actor = nullptr;

constexpr size_t kTraceTailEvents = 48;

// The events kept for a failure report: 48, or $OMNIGRAPH_SIM_TRACE_TAIL when replaying a seed
// whose cause lies further back.
size_t TraceTailEvents() {
  static const size_t events = [] {
    const char* env = std::getenv("OMNIGRAPH_SIM_TRACE_TAIL");
    return env ? std::max<size_t>(1, std::strtoull(env, nullptr, 10)) : kTraceTailEvents;
  }();
  return events;
}

Status CrashedStatus(std::string_view name) {
  return Status(Kind::kPermanent, Code::kCancelled, "simulated crash: the actor is gone",
                std::string(name));
}

}  // namespace

std::string FaultProfile::ToString() const {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "transient=%.2f unknown=%.2f deferred=%.2f burst=%.2f crash=%.2f chaos=%.2f",
                transient, unknown_after_effect, deferred, unknown_burst, crash, chaos);
  return buf;
}

// The ObjectStore actors see: every call waits for the scheduler, then runs against the backing
// store under a fault drawn from the seed.
class SimStore final : public storage::ObjectStore {
 public:
  SimStore(SimWorld* world, std::shared_ptr<storage::MemoryStore> inner)
      : world_(world), inner_(std::move(inner)) {}

  Result<storage::GetResult> Get(std::string_view name,
                                 std::optional<storage::ByteRange> range) override {
    ActorContext* ctx = world_->Current();
    if (!ctx) return inner_->Get(name, range);
    SimWorld::Fault f = world_->Enter(*ctx, false, "get", name);
    if (Status s = ReadFault(f, name); !s.ok()) return s;
    Result<storage::GetResult> r = inner_->Get(name, range);
    Finish("get", name, r.status(), r.ok() ? XxHash64(r->data) : 0);
    return r;
  }

  // A shared read is a GET to the simulated store: scheduled and faulted as one.
  Result<storage::SharedGetResult> GetShared(std::string_view name,
                                             std::optional<storage::ByteRange> range) override {
    ActorContext* ctx = world_->Current();
    if (!ctx) return inner_->GetShared(name, range);
    SimWorld::Fault f = world_->Enter(*ctx, false, "get", name);
    if (Status s = ReadFault(f, name); !s.ok()) return s;
    Result<storage::SharedGetResult> r = inner_->GetShared(name, range);
    Finish("get", name, r.status(), r.ok() ? XxHash64(r->data.view()) : 0);
    return r;
  }

  Result<storage::ObjectMeta> Head(std::string_view name) override {
    ActorContext* ctx = world_->Current();
    if (!ctx) return inner_->Head(name);
    SimWorld::Fault f = world_->Enter(*ctx, false, "head", name);
    if (Status s = ReadFault(f, name); !s.ok()) return s;
    Result<storage::ObjectMeta> r = inner_->Head(name);
    Finish("head", name, r.status(), r.ok() ? r->size_bytes : 0);
    return r;
  }

  Result<storage::ListPage> List(const storage::ListOptions& options) override {
    ActorContext* ctx = world_->Current();
    if (!ctx) return inner_->List(options);
    SimWorld::Fault f = world_->Enter(*ctx, false, "list", options.prefix);
    if (Status s = ReadFault(f, options.prefix); !s.ok()) return s;
    Result<storage::ListPage> r = inner_->List(options);
    uint64_t h = 0;
    if (r.ok()) {
      for (const storage::ObjectMeta& m : r->objects) h = XxHash64(m.name, h);
    }
    Finish("list", options.prefix, r.status(), h);
    return r;
  }

  Status Put(std::string_view name, std::string_view data) override {
    ActorContext* ctx = world_->Current();
    if (!ctx) return inner_->Put(name, data);
    auto inner = inner_;
    std::string n(name), d(data);
    Result<bool> r = Mutate(
        *ctx, "put", name,
        [&]() -> Result<bool> {
          OMNIGRAPH_RETURN_IF_ERROR(inner->Put(n, d));
          return true;
        },
        [inner, n, d] { inner->Put(n, d).IgnoreError(); });
    return r.status();
  }

  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    ActorContext* ctx = world_->Current();
    if (!ctx) return inner_->PutIfAbsent(name, data);
    auto inner = inner_;
    std::string n(name), d(data);
    Result<bool> r = Mutate(
        *ctx, "put_if_absent", name, [&]() { return inner->PutIfAbsent(n, d); },
        [inner, n, d] { inner->PutIfAbsent(n, d).status().IgnoreError(); });
    char outcome = 'X';
    if (r.ok()) {
      outcome = *r ? 'C' : 'E';
    } else if (r.status().kind() == Kind::kUnknown) {
      outcome = 'U';
    } else if (r.status().kind() == Kind::kTransient) {
      outcome = 'T';
    }
    if (!ctx->crashed_ || outcome != 'X') ctx->creates_.push_back(CreateAttempt{n, outcome});
    return r;
  }

  Result<std::string> PutIfMatch(std::string_view name, std::string_view data,
                                 std::string_view etag) override {
    ActorContext* ctx = world_->Current();
    if (!ctx) return inner_->PutIfMatch(name, data, etag);
    auto inner = inner_;
    std::string n(name), d(data), e(etag), new_etag;
    Result<bool> r = Mutate(
        *ctx, "put_if_match", name,
        [&]() -> Result<bool> {
          OMNIGRAPH_ASSIGN_OR_RETURN(new_etag, inner->PutIfMatch(n, d, e));
          return true;
        },
        [inner, n, d, e] { inner->PutIfMatch(n, d, e).status().IgnoreError(); });
    if (!r.ok()) return r.status();
    return new_etag;
  }

  Status Delete(std::string_view name) override {
    ActorContext* ctx = world_->Current();
    if (!ctx) return inner_->Delete(name);
    auto inner = inner_;
    std::string n(name);
    Result<bool> r = Mutate(
        *ctx, "delete", name,
        [&]() -> Result<bool> {
          OMNIGRAPH_RETURN_IF_ERROR(inner->Delete(n));
          return true;
        },
        [inner, n] { inner->Delete(n).IgnoreError(); });
    return r.status();
  }

  std::string Describe() const override { return "sim://" + inner_->Describe(); }
  int64_t UnknownOutcomeWindowMicros() const override {
    return world_->faults_.deferred_lifetime_micros;
  }

 private:
  Status ReadFault(SimWorld::Fault f, std::string_view name) {
    switch (f) {
      case SimWorld::Fault::kNone: return Status::Ok();
      case SimWorld::Fault::kCrashBefore:
      case SimWorld::Fault::kCrashAfter: return CrashedStatus(name);
      default:
        world_->Trace("  -> transient");
        return Status(Code::kTransient, "simulated transient read failure", std::string(name));
    }
  }

  void Finish(std::string_view op, std::string_view name, const Status& s, uint64_t h) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), " %016llx", static_cast<unsigned long long>(h));
    world_->Trace("  " + std::string(op) + " " + std::string(name) + " -> " +
                  std::string(CodeName(s.code())) + buf);
  }

  Result<bool> Mutate(ActorContext& ctx, std::string_view op, std::string_view name,
                      const std::function<Result<bool>()>& effect,
                      std::function<void()> deferred_effect) {
    SimWorld::Fault f = world_->Enter(ctx, true, op, name);
    const std::string n(name);
    switch (f) {
      case SimWorld::Fault::kNone: {
        Result<bool> r = effect();
        Finish(op, name, r.status(), r.ok() ? *r : 2);
        return r;
      }
      case SimWorld::Fault::kTransient:
        world_->Trace("  -> transient");
        return Status(Code::kTransient, "simulated transient failure before effect", n);
      case SimWorld::Fault::kUnknownAfter: {
        Result<bool> r = effect();
        Finish(op, name, r.status(), r.ok() ? *r : 2);
        world_->Trace("  -> unknown after effect");
        return Status(Code::kUnknown, "simulated lost acknowledgement", n);
      }
      case SimWorld::Fault::kDeferred:
        world_->Defer(std::string(op) + " " + n, n, std::move(deferred_effect));
        world_->Trace("  -> unknown, deferred");
        return Status(Code::kUnknown, "simulated timeout; the request may land later", n);
      case SimWorld::Fault::kCrashAfter: {
        Result<bool> r = effect();
        Finish(op, name, r.status(), 3);
        return CrashedStatus(name);
      }
      case SimWorld::Fault::kCrashBefore: return CrashedStatus(name);
    }
    return CrashedStatus(name);
  }

  SimWorld* world_;
  std::shared_ptr<storage::MemoryStore> inner_;
};

// The Yielder of one actor thread: a wait gives the turn back to the scheduler.
class ActorYielder final : public Yielder {
 public:
  ActorYielder(SimWorld& world, ActorContext& ctx) : world_(world), ctx_(ctx) {}
  void Yield() override { world_.Park(ctx_); }

 private:
  SimWorld& world_;
  ActorContext& ctx_;
};

SimWorld::SimWorld(uint64_t seed, FaultProfile faults)
    : seed_(seed), faults_(faults), random_(seed), clock_(std::make_shared<ManualClock>()) {
  backing_ = std::make_shared<storage::MemoryStore>("sim", clock_.get());
  sim_store_ = std::make_shared<SimStore>(this, backing_);
  direct_ = storage::Runtime{clock_, std::make_shared<Random>(random_.Fork()),
                             std::make_shared<InlineExecutor>(), backing_};
}

SimWorld::~SimWorld() {
  for (Actor& a : actors_) {
    if (a.thread.joinable()) a.thread.join();
  }
}

ActorContext* SimWorld::Current() { return tls_world == this ? tls_actor : nullptr; }

void SimWorld::Trace(std::string_view event) {
  trace_hash_ = XxHash64(event, trace_hash_);
  tail_.emplace_back(event);
  if (tail_.size() > TraceTailEvents()) tail_.pop_front();
}

void SimWorld::AddActor(std::string name, ActorBody body) {
  Actor a;
  a.body = std::move(body);
  a.ctx = std::make_unique<ActorContext>();
  a.ctx->id_ = static_cast<int>(actors_.size());
  a.ctx->name_ = std::move(name);
  a.ctx->decisions_ = random_.Fork();
  a.ctx->incarnation_ = -1;
  NewIncarnation(*a.ctx);
  actors_.push_back(std::move(a));
}

void SimWorld::NewIncarnation(ActorContext& ctx) {
  ++ctx.incarnation_;
  ctx.crashed_ = false;
  ctx.durable_writes_ = 0;
  ctx.burst_left_ = 0;
  ctx.crash_at_ = 0;
  if (ctx.crashes_ < kSimCrashesPerActorMax && random_.Bernoulli(faults_.crash)) {
    ctx.crash_at_ = static_cast<int>(random_.Range(1, faults_.crash_write_max));
    ctx.crash_applies_ = random_.Bernoulli(0.5);
  }
  // A fresh incarnation is a fresh process: its own Random, nothing cached.
  ctx.runtime_ = storage::Runtime{clock_, std::make_shared<Random>(random_.Fork()),
                                  std::make_shared<InlineExecutor>(), sim_store_};
}

void SimWorld::ActorMain(int id) {
  ActorContext& ctx = *actors_[id].ctx;
  tls_world = this;
  tls_actor = &ctx;
  ActorYielder yielder(*this, ctx);
  SetThreadYielder(&yielder);
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return turn_ == id; });
  }
  while (true) {
    actors_[id].body(ctx);
    if (!ctx.crashed_) break;
    Trace("restart " + ctx.name_);
    NewIncarnation(ctx);
  }
  SetThreadYielder(nullptr);
  std::lock_guard lock(mu_);
  actors_[id].done = true;
  turn_ = -1;
  cv_.notify_all();
}

SimWorld::Fault SimWorld::Enter(ActorContext& ctx, bool mutating, std::string_view op,
                                std::string_view name) {
  if (ctx.crashed_) return Fault::kCrashBefore;  // A crashed actor touches nothing.
  {
    std::unique_lock lock(mu_);
    turn_ = -1;
    cv_.notify_all();
    cv_.wait(lock, [&] { return turn_ == ctx.id_; });
  }
  // This thread now runs alone until its next store call.
  if (stuck_) {
    ctx.crashed_ = true;
    return Fault::kCrashBefore;
  }
  clock_->Advance(static_cast<int64_t>(random_.Uniform(faults_.latency_micros_max + 1)));
  LandOverdue();
  Trace(ctx.name_ + " " + std::string(op) + " " + std::string(name));
  if (mutating && faults_.crash > 0 && ++ctx.durable_writes_ == ctx.crash_at_) {
    ctx.crashed_ = true;
    ++ctx.crashes_;
    ++stats_.crashes;
    Trace(ctx.crash_applies_ ? "  crash after effect" : "  crash before effect");
    return ctx.crash_applies_ ? Fault::kCrashAfter : Fault::kCrashBefore;
  }
  Fault f = Fault::kNone;
  if (mutating && ctx.burst_left_ > 0) {
    --ctx.burst_left_;
    f = random_.Bernoulli(0.5) ? Fault::kDeferred : Fault::kUnknownAfter;
  } else {
    double r = random_.NextDouble();
    if (r < faults_.transient) {
      f = Fault::kTransient;
    } else if (mutating) {
      r -= faults_.transient;
      if (r < faults_.unknown_after_effect) {
        f = Fault::kUnknownAfter;
      } else if (r - faults_.unknown_after_effect < faults_.deferred) {
        f = Fault::kDeferred;
      }
      if ((f == Fault::kUnknownAfter || f == Fault::kDeferred) &&
          random_.Bernoulli(faults_.unknown_burst)) {
        ctx.burst_left_ = faults_.burst_length;
      }
    }
  }
  if (f != Fault::kNone) ++stats_.faults;
  return f;
}

void SimWorld::Park(ActorContext& ctx) {
  {
    std::unique_lock lock(mu_);
    turn_ = -1;
    cv_.notify_all();
    cv_.wait(lock, [&] { return turn_ == ctx.id_; });
  }
  Trace(ctx.name_ + " waits");
}

void SimWorld::Defer(std::string what, std::string name, std::function<void()> apply) {
  deferred_.push_back(DeferredWrite{std::move(what), std::move(name), std::move(apply),
                                    clock_->NowMicros() + faults_.deferred_lifetime_micros});
}

void SimWorld::LandOverdue() {
  const int64_t now = clock_->NowMicros();
  for (size_t i = 0; i < deferred_.size();) {
    if (deferred_[i].deadline <= now) {
      LandOne(i);  // Erases it: the next one is at i now.
    } else {
      ++i;
    }
  }
}

void SimWorld::LandInFlight(const std::string& name) {
  while (true) {
    std::vector<size_t> to_name;
    for (size_t i = 0; i < deferred_.size(); ++i) {
      if (deferred_[i].name == name) to_name.push_back(i);
    }
    if (to_name.empty()) return;
    LandOne(to_name[random_.Uniform(to_name.size())]);
  }
}

void SimWorld::LandOne(size_t index) {
  DeferredWrite d = std::move(deferred_[index]);
  deferred_.erase(deferred_.begin() + static_cast<std::ptrdiff_t>(index));
  Trace("land " + d.what);
  d.apply();
  ++stats_.deferred_landed;
}

RunStats SimWorld::Run() {
  for (size_t i = 0; i < actors_.size(); ++i) {
    actors_[i].thread = std::thread(&SimWorld::ActorMain, this, static_cast<int>(i));
  }
  while (true) {
    std::vector<int> runnable;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return turn_ == -1; });
      for (const Actor& a : actors_) {
        if (!a.done) runnable.push_back(a.ctx->id_);
      }
    }
    if (runnable.empty()) break;
    // No actor runs now: the scheduler may touch the store itself.
    if (!deferred_.empty() && random_.Bernoulli(faults_.deferred_landing)) {
      LandOne(random_.Uniform(deferred_.size()));
    }
    if (chaos_ && faults_.chaos > 0 && random_.Bernoulli(faults_.chaos)) {
      ++stats_.chaos;
      chaos_(*backing_, random_, *this);
    }
    if (++stats_.steps > kSimStepsMax) stuck_ = true;
    int pick = runnable[random_.Uniform(runnable.size())];
    std::lock_guard lock(mu_);
    turn_ = pick;
    cv_.notify_all();
  }
  for (Actor& a : actors_) a.thread.join();
  // Requests still in flight land after everyone was answered, in a seeded order.
  while (!deferred_.empty()) LandOne(random_.Uniform(deferred_.size()));
  stats_.stuck = stuck_;
  return stats_;
}

}  // namespace omnigraph::testing

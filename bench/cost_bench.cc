// omnigraph-bench cost: object operations per publication and per read, at several history depths
// (the RFC's cost instrument), and with --latency the latency of a warm publish beside a raw
// conditional create of a record-sized object.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "bench/bench.h"
#include "commit/branches.h"
#include "commit/stream.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "storage/uri.h"

namespace omnigraph::bench {
namespace {

using commit::GraphState;
using commit::PublishRequest;
using commit::RecordContent;
using commit::Stream;

constexpr int kTables = 8;

RecordContent Genesis() {
  RecordContent c;
  c.schema = commit::SchemaRef{"bench-graph", "sha256:00", 1, "00", Json::object()};
  for (uint64_t id = 1; id <= kTables; ++id) {
    std::string key = (id % 2 ? "node:T" : "edge:E") + std::to_string(id);
    c.registrations.push_back({id, 1, key, id % 2 ? "node" : "edge", Json::object()});
    c.pins.push_back({id, 1, key, 0, (1ULL << 63) | id, "tx-0", 0, Json::object()});
  }
  return c;
}

PublishRequest BumpOne() {
  PublishRequest request;
  request.stage = [](const GraphState& base) -> Result<RecordContent> {
    RecordContent c;
    uint64_t id = base.seq % kTables + 1;
    const commit::TableState& t = base.tables.at(TableId{id, 1});
    TablePin pin = t.pin;
    pin.target_version += 1;
    pin.staged_version = (1ULL << 63) | (base.seq + 1) << 8 | id;
    pin.transaction_uuid = "tx-" + std::to_string(base.seq + 1);
    pin.entity_count += 10;
    c.pins.push_back(pin);
    return c;
  };
  return request;
}

struct Backend {
  std::string name;
  std::shared_ptr<storage::ObjectStore> inner;
};

Result<Backend> MakeBackend(const std::string& backend, const std::string& root, int depth_run) {
  if (backend == "memory") {
    return Backend{"memory", std::make_shared<storage::MemoryStore>()};
  }
  if (backend == "file") {
    std::string dir =
        root.empty() ? std::filesystem::temp_directory_path().string() + "/omnigraph-bench-cost"
                     : root;
    dir += "/run-" + std::to_string(depth_run);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    OMNIGRAPH_ASSIGN_OR_RETURN(auto store, storage::LocalStore::Open(dir));
    return Backend{"file", std::shared_ptr<storage::ObjectStore>(std::move(store))};
  }
  if (!root.empty()) {
    // A fresh prefix per run (s3://bucket/prefix/run-N-T), as the file backend gets a fresh
    // directory: every depth starts from an empty root.
    OMNIGRAPH_ASSIGN_OR_RETURN(auto store,
                               storage::OpenStore(root + "/run-" + std::to_string(depth_run) + "-" +
                                                  std::to_string(NowNanos())));
    return Backend{backend, store};
  }
  return InvalidArgument("unknown backend '" + backend + "' (memory, file, s3, azure)");
}

void Report(bool json, const std::string& backend, int64_t depth, const char* operation,
            const storage::OpCounts& c) {
  if (json) {
    std::printf(
        "{\"backend\":\"%s\",\"depth\":%lld,\"operation\":\"%s\",\"gets\":%llu,\"heads\":%llu,"
        "\"puts\":%llu,\"put_if_absent\":%llu,\"put_if_match\":%llu,\"lists\":%llu,"
        "\"deletes\":%llu,\"bytes_read\":%llu,\"bytes_written\":%llu}\n",
        backend.c_str(), static_cast<long long>(depth), operation,
        static_cast<unsigned long long>(c.gets), static_cast<unsigned long long>(c.heads),
        static_cast<unsigned long long>(c.puts), static_cast<unsigned long long>(c.put_if_absent),
        static_cast<unsigned long long>(c.put_if_match), static_cast<unsigned long long>(c.lists),
        static_cast<unsigned long long>(c.deletes), static_cast<unsigned long long>(c.bytes_read),
        static_cast<unsigned long long>(c.bytes_written));
  } else {
    std::printf(
        "%-7s %6lld  %-13s gets=%-3llu heads=%llu puts=%llu put_if_absent=%llu "
        "put_if_match=%llu lists=%llu deletes=%llu read=%lluB written=%lluB\n",
        backend.c_str(), static_cast<long long>(depth), operation,
        static_cast<unsigned long long>(c.gets), static_cast<unsigned long long>(c.heads),
        static_cast<unsigned long long>(c.puts), static_cast<unsigned long long>(c.put_if_absent),
        static_cast<unsigned long long>(c.put_if_match), static_cast<unsigned long long>(c.lists),
        static_cast<unsigned long long>(c.deletes), static_cast<unsigned long long>(c.bytes_read),
        static_cast<unsigned long long>(c.bytes_written));
  }
}

#define BENCH_CHECK(expr)                                                        \
  do {                                                                           \
    ::omnigraph::Status s_ = ::omnigraph::internal::ToStatus(expr);              \
    if (!s_.ok()) {                                                              \
      std::fprintf(stderr, "omnigraph-bench cost: %s\n", s_.ToString().c_str()); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int RunCounts(const Flags& flags) {
  const bool json = flags.Has("json");
  const std::string backend_name = flags.Get("backend", "memory");
  const uint64_t interval = static_cast<uint64_t>(flags.GetInt("interval", 50));
  commit::StreamOptions options{interval, true};
  int run = 0;
  for (int64_t depth : flags.GetIntList("depths", {10, 100, 1000, 10000})) {
    Result<Backend> backend = MakeBackend(backend_name, flags.Get("root"), run++);
    BENCH_CHECK(backend.status());
    auto counting = std::make_shared<storage::CountingStore>(backend->inner);
    storage::Runtime rt = storage::Runtime::ForTest(counting, 42);
    rt.clock = std::shared_ptr<Clock>(SystemClock::Default(), [](Clock*) {});
    BENCH_CHECK(commit::CreateMainStream(rt, Genesis(), "bench").status());
    Result<std::unique_ptr<Stream>> writer = Stream::Open(rt, "main", options);
    BENCH_CHECK(writer.status());
    for (int64_t i = 0; i < depth; ++i) BENCH_CHECK((*writer)->Publish(BumpOne()).status());
    (*writer)->WaitForBackground();

    auto measure = [&](const char* operation, auto&& fn) -> int {
      storage::OpCounts before = counting->Snapshot();
      BENCH_CHECK(fn());
      Report(json, backend->name, depth, operation, counting->Snapshot() - before);
      return 0;
    };
    Result<std::unique_ptr<Stream>> reader = Stream::Open(rt, "main", options);
    BENCH_CHECK(reader.status());
    if (measure("cold_read", [&] { return (*reader)->ReadHead().status(); })) return 1;
    if (measure("warm_read", [&] { return (*reader)->ReadHead().status(); })) return 1;
    if (measure("time_travel",
                [&] { return (*reader)->ReadAt(static_cast<uint64_t>(depth / 2)).status(); })) {
      return 1;
    }
    if (measure("warm_publish", [&] {
          Status s = (*writer)->Publish(BumpOne()).status();
          (*writer)->WaitForBackground();
          return s;
        })) {
      return 1;
    }
    const std::string branch = "bench-" + std::to_string(depth);
    if (measure("branch_create", [&] {
          Result<std::shared_ptr<const GraphState>> head = (*writer)->ReadHead();
          if (!head.ok()) return head.status();
          return commit::CreateBranch(rt, branch, commit::ForkPoint{**head, "main", true}, "bench",
                                      options)
              .status();
        })) {
      return 1;
    }
    if (measure("branch_delete",
                [&] { return commit::DeleteBranch(rt, branch, "bench", options); })) {
      return 1;
    }
    Result<std::unique_ptr<Stream>> cold = Stream::Open(rt, "main", options);
    BENCH_CHECK(cold.status());
    if (measure("cold_publish", [&] {
          Status s = (*cold)->Publish(BumpOne()).status();
          (*cold)->WaitForBackground();
          return s;
        })) {
      return 1;
    }
  }
  return 0;
}

int RunLatency(const Flags& flags) {
  const std::string backend_name = flags.Get("backend", "memory");
  const int samples = static_cast<int>(flags.GetInt("samples", 2000));
  Result<Backend> backend = MakeBackend(backend_name, flags.Get("root"), 999);
  BENCH_CHECK(backend.status());
  storage::Runtime rt = storage::Runtime::ForStore(backend->inner, 2);
  BENCH_CHECK(commit::CreateMainStream(rt, Genesis(), "bench").status());
  Result<std::unique_ptr<Stream>> writer = Stream::Open(rt, "main");
  BENCH_CHECK(writer.status());
  BENCH_CHECK((*writer)->ReadHead().status());
  // A record-sized payload: what one publish of one table writes.
  std::string payload;
  {
    commit::Record r;
    r.commit_id = "main.1.0000000000";
    r.stream = "main";
    r.pins.push_back({1, 1, "node:T1", 1, 1ULL << 63, "tx-1", 10, Json::object()});
    payload = *commit::EncodeRecord(r);
  }
  std::vector<double> raw, publish;
  for (int i = 0; i < samples; ++i) {
    // Interleave the two so that both see the same machine conditions.
    int64_t t0 = NowNanos();
    Result<bool> created = backend->inner->PutIfAbsent("raw/" + std::to_string(i), payload);
    int64_t t1 = NowNanos();
    BENCH_CHECK(created.status());
    Result<commit::PublishResult> r = (*writer)->Publish(BumpOne());
    int64_t t2 = NowNanos();
    BENCH_CHECK(r.status());
    raw.push_back(static_cast<double>(t1 - t0) / 1000.0);
    publish.push_back(static_cast<double>(t2 - t1) / 1000.0);
  }
  (*writer)->WaitForBackground();
  double raw_p50 = Percentile(raw, 50), raw_p99 = Percentile(raw, 99);
  double pub_p50 = Percentile(publish, 50), pub_p99 = Percentile(publish, 99);
  if (flags.Has("json")) {
    std::printf(
        "{\"backend\":\"%s\",\"samples\":%d,\"raw_p50_us\":%.2f,\"raw_p99_us\":%.2f,"
        "\"publish_p50_us\":%.2f,\"publish_p99_us\":%.2f,\"ratio_p50\":%.3f}\n",
        backend->name.c_str(), samples, raw_p50, raw_p99, pub_p50, pub_p99, pub_p50 / raw_p50);
  } else {
    std::printf(
        "%s: raw put_if_absent p50 %.1f us p99 %.1f us; warm publish p50 %.1f us p99 "
        "%.1f us; ratio p50 %.2f\n",
        backend->name.c_str(), raw_p50, raw_p99, pub_p50, pub_p99, pub_p50 / raw_p50);
  }
  return 0;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"backend", "root", "depths", "interval", "json", "latency", "samples"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench cost: %s\n", flags.error().c_str());
    return 2;
  }
  return flags.Has("latency") ? RunLatency(flags) : RunCounts(flags);
}

Registrar registrar("cost", "object operations per publish and read at several depths", &Main);

}  // namespace
}  // namespace omnigraph::bench

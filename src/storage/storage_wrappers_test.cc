#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "storage/counting_store.h"
#include "storage/fault_store.h"
#include "storage/forwarding_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"
#include "storage/uri.h"

namespace omnigraph::storage {
namespace {

// Whether a store is remote (decision 213) is the wrapped store's answer through every wrapper:
// a counting, faulting or forwarding store over S3 is still a remote store to its readers.
TEST(WrapperTest, AWrapperIsRemoteExactlyWhenItsStoreIs) {
  class RemoteLike : public ForwardingStore {
   public:
    using ForwardingStore::ForwardingStore;
    bool Remote() const override { return true; }
  };
  TempDir dir;
  Result<std::shared_ptr<ObjectStore>> local = OpenStore("file://" + dir.path() + "/g");
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_FALSE((*local)->Remote());
  for (const bool remote : {false, true}) {
    std::shared_ptr<ObjectStore> base = std::make_shared<MemoryStore>();
    EXPECT_FALSE(base->Remote());
    if (remote) base = std::make_shared<RemoteLike>(base);
    const auto counting = std::make_shared<CountingStore>(base);
    const auto faulty = std::make_shared<FaultStore>(counting);
    const auto forwarding = std::make_shared<ForwardingStore>(faulty);
    EXPECT_EQ(counting->Remote(), remote);
    EXPECT_EQ(faulty->Remote(), remote);
    EXPECT_EQ(forwarding->Remote(), remote);
  }
}

TEST(CountingStoreTest, CountsEveryOperationAndBytes) {
  auto counting = std::make_shared<CountingStore>(std::make_shared<MemoryStore>());
  OpCounts before = counting->Snapshot();
  ASSERT_TRUE(counting->Put("a", "12345").ok());
  ASSERT_TRUE(*counting->PutIfAbsent("b", "123"));
  ASSERT_FALSE(*counting->PutIfAbsent("b", "123"));
  std::string etag = counting->Head("a")->etag;
  ASSERT_TRUE(counting->PutIfMatch("a", "xy", etag).ok());
  ASSERT_EQ(counting->Get("a")->data, "xy");
  ASSERT_EQ(counting->Get("b", ByteRange{1, 1})->data, "2");
  ASSERT_FALSE(counting->Get("missing").ok());
  ASSERT_TRUE(counting->List(ListOptions{}).ok());
  ASSERT_TRUE(counting->Delete("a").ok());
  OpCounts d = counting->Snapshot() - before;
  OpCounts expected;
  expected.puts = 1;
  expected.put_if_absent = 2;
  expected.put_if_match = 1;
  expected.heads = 1;
  expected.gets = 3;
  expected.lists = 1;
  expected.deletes = 1;
  expected.bytes_written = 5 + 3 + 3 + 2;
  expected.bytes_read = 2 + 1;
  expected.rounds = 10;  // One after another: a round per call.
  EXPECT_EQ(d, expected) << d.ToString();
  EXPECT_EQ(d.reads(), 5u);
  EXPECT_EQ(d.writes(), 5u);
  counting->Reset();
  EXPECT_EQ(counting->Snapshot(), OpCounts{});
}

TEST(CountingStoreTest, CountsASharedReadAsAGetAndItsBytes) {
  auto counting = std::make_shared<CountingStore>(std::make_shared<MemoryStore>());
  ASSERT_TRUE(counting->Put("a", "12345").ok());
  const OpCounts before = counting->Snapshot();
  ASSERT_EQ(counting->GetShared("a")->data.view(), "12345");
  ASSERT_EQ(counting->GetShared("a", ByteRange{1, 2})->data.view(), "23");
  ASSERT_FALSE(counting->GetShared("missing").ok());
  OpCounts expected;
  expected.gets = 3;
  expected.shared_gets = 3;
  expected.bytes_read = 5 + 2;
  expected.rounds = 3;
  const OpCounts d = counting->Snapshot() - before;
  EXPECT_EQ(d, expected) << d.ToString();
}

// Holds every Get until `width` Gets are inside it, so that many calls are surely in flight
// together.
class GatheringStore final : public ForwardingStore {
 public:
  GatheringStore(std::shared_ptr<ObjectStore> inner, int width)
      : ForwardingStore(std::move(inner)), width_(width) {}
  Result<GetResult> Get(std::string_view name, std::optional<ByteRange> range) override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (++inside_ % width_ == 0) all_in_.notify_all();
      const int batch = (inside_ - 1) / width_;
      all_in_.wait(lock, [&] { return inside_ >= (batch + 1) * width_; });
    }
    return ForwardingStore::Get(name, range);
  }

 private:
  const int width_;
  std::mutex mu_;
  std::condition_variable all_in_;
  int inside_ = 0;
};

// Calls in flight together share a round; a call made after they returned is the next round,
// and a later call's rounds are a difference of snapshots (docs/design/storage.md "Wrappers").
TEST(CountingStoreTest, CallsInFlightTogetherShareARound) {
  auto inner = std::make_shared<MemoryStore>();
  ASSERT_TRUE(inner->Put("a", "1").ok());
  auto counting = std::make_shared<CountingStore>(std::make_shared<GatheringStore>(inner, 3));
  auto fan_out = [&] {
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; ++i) {
      threads.emplace_back([&] { EXPECT_TRUE(counting->Get("a").ok()); });
    }
    for (std::thread& t : threads) t.join();
  };
  fan_out();
  OpCounts after_one = counting->Snapshot();
  EXPECT_EQ(after_one.gets, 3u);
  EXPECT_EQ(after_one.rounds, 1u);
  ASSERT_TRUE(counting->Head("a").ok());
  fan_out();
  const OpCounts d = counting->Snapshot() - after_one;
  EXPECT_EQ(d.gets, 3u);
  EXPECT_EQ(d.heads, 1u);
  EXPECT_EQ(d.rounds, 2u);  // The HEAD, then the three GETs together.
}

TEST(FaultStoreTest, ASharedReadFaultsAsAGet) {
  auto inner = std::make_shared<MemoryStore>();
  ASSERT_TRUE(inner->Put("x", "1").ok());
  FaultStore faults(inner);
  faults.AddRule({.ops = Mask(Op::kGet), .kind = FaultKind::kTransientBeforeEffect});
  Result<SharedGetResult> r = faults.GetShared("x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Kind::kTransient);
  EXPECT_EQ(faults.GetShared("x")->data.view(), "1");
  EXPECT_EQ(faults.faults_injected(), 1u);
}

// A mapped range shares one mapping: its slices stay valid while any of them lives, after the
// file is unlinked, and a file that cannot be opened is NotFound naming the object.
TEST(LocalStoreTest, GetSharedMapsLargeRangesAndCopiesSmallOnes) {
  TempDir dir;
  auto store = LocalStore::Open(dir.path() + "/root");
  ASSERT_TRUE(store.ok());
  std::string data(LocalStore::kMapBytesMin * 2 + 17, 'x');
  data[LocalStore::kMapBytesMin + 3] = 'y';
  ASSERT_TRUE((*store)->Put("big", data).ok());
  Result<SharedGetResult> mapped = (*store)->GetShared("big", ByteRange{5, data.size()});
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_EQ(mapped->data.view(), data.substr(5));
  EXPECT_EQ(mapped->data.view()[LocalStore::kMapBytesMin - 2], 'y');
  Result<SharedGetResult> small =
      (*store)->GetShared("big", ByteRange{LocalStore::kMapBytesMin, 8});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->data.view(), "xxxyxxxx");
  std::filesystem::remove(dir.path() + "/root/big");
  EXPECT_EQ(mapped->data.Slice(LocalStore::kMapBytesMin - 2, 1).view(), "y");
  Result<SharedGetResult> gone = (*store)->GetShared("big");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().kind(), Kind::kNotFound);
  EXPECT_NE(gone.status().ToString().find("big"), std::string::npos);
}

// The file a mapping of this process that holds `address` maps ("" when none does).
std::string MappedFileOf(const void* address) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  for (std::string line; std::getline(maps, line);) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &begin, &end) != 2) continue;
    if (at < begin || at >= end) continue;
    const size_t slash = line.find('/');
    return slash == std::string::npos ? "" : line.substr(slash);
  }
  return "";
}

// A range of 64 KiB (an adjacency's coalesced point read, say) is a mapping of the file's cached
// pages, not a copy into fresh memory (decision 244); a shorter one is copied.
TEST(LocalStoreTest, GetSharedMapsRangesFrom64KiB) {
  TempDir dir;
  auto store = LocalStore::Open(dir.path() + "/root");
  ASSERT_TRUE(store.ok());
  const std::string data(200 * 1024, 'z');
  ASSERT_TRUE((*store)->Put("mid", data).ok());
  Result<SharedGetResult> mapped = (*store)->GetShared("mid", ByteRange{4096 + 5, 64 * 1024});
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_EQ(mapped->data.view(), data.substr(4096 + 5, 64 * 1024));
  EXPECT_NE(MappedFileOf(mapped->data.data()).find("/root/mid"), std::string::npos);
  Result<SharedGetResult> copied = (*store)->GetShared("mid", ByteRange{0, 64 * 1024 - 1});
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(copied->data.view(), data.substr(0, 64 * 1024 - 1));
  EXPECT_EQ(MappedFileOf(copied->data.data()).find("/root/mid"), std::string::npos);
}

TEST(FaultStoreTest, TransientBeforeEffectLeavesNoObject) {
  auto inner = std::make_shared<MemoryStore>();
  FaultStore faults(inner);
  faults.AddRule({.ops = Mask(Op::kPutIfAbsent), .kind = FaultKind::kTransientBeforeEffect});
  Result<bool> r = faults.PutIfAbsent("x", "1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Kind::kTransient);
  EXPECT_EQ(inner->Head("x").status().kind(), Kind::kNotFound);
  // The rule fired once; the retry goes through.
  EXPECT_TRUE(*faults.PutIfAbsent("x", "1"));
  EXPECT_EQ(faults.faults_injected(), 1u);
}

TEST(FaultStoreTest, LostAcknowledgementIsUnknownWhileTheObjectExists) {
  auto inner = std::make_shared<MemoryStore>();
  FaultStore faults(inner);
  faults.AddRule({.ops = Mask(Op::kPutIfAbsent), .kind = FaultKind::kUnknownAfterEffect});
  Result<bool> r = faults.PutIfAbsent("rec", "mine");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Kind::kUnknown);
  Result<GetResult> back = faults.Get("rec");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->data, "mine");
  // Re-driving the identical create now reports "exists".
  EXPECT_FALSE(*faults.PutIfAbsent("rec", "mine"));
}

TEST(FaultStoreTest, DeferredEffectLandsAfterTheCallerWasAnswered) {
  auto inner = std::make_shared<MemoryStore>();
  FaultStore faults(inner);
  faults.AddRule(
      {.ops = Mask(Op::kPut), .kind = FaultKind::kUnknownDeferredEffect, .deferred_ops = 2});
  Status s = faults.Put("late", "v");
  EXPECT_EQ(s.kind(), Kind::kUnknown);
  EXPECT_EQ(faults.pending_deferred(), 1u);
  // The first read-back finds nothing: absence does not prove "no effect".
  EXPECT_EQ(faults.Get("late").status().kind(), Kind::kNotFound);
  // The second call after it applies the write first.
  Result<GetResult> r = faults.Get("late");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data, "v");
  EXPECT_EQ(faults.pending_deferred(), 0u);
}

TEST(FaultStoreTest, ApplyDeferredFlushesPendingWrites) {
  auto inner = std::make_shared<MemoryStore>();
  FaultStore faults(inner);
  faults.AddRule({.ops = kMutatingOps,
                  .kind = FaultKind::kUnknownDeferredEffect,
                  .times = -1,
                  .deferred_ops = 100});
  EXPECT_EQ(faults.PutIfAbsent("a", "1").status().kind(), Kind::kUnknown);
  EXPECT_EQ(faults.Put("b", "2").kind(), Kind::kUnknown);
  EXPECT_EQ(inner->size(), 0u);
  EXPECT_EQ(faults.ApplyDeferred(), 2u);
  EXPECT_EQ(inner->size(), 2u);
}

TEST(FaultStoreTest, RulesMatchPrefixSkipAndTimes) {
  auto inner = std::make_shared<MemoryStore>();
  FaultStore faults(inner);
  faults.AddRule({.ops = Mask(Op::kGet),
                  .name_prefix = "hot/",
                  .kind = FaultKind::kTransientBeforeEffect,
                  .skip = 1,
                  .times = 2});
  ASSERT_TRUE(inner->Put("hot/x", "1").ok());
  ASSERT_TRUE(inner->Put("cold/x", "1").ok());
  EXPECT_TRUE(faults.Get("cold/x").ok());
  EXPECT_TRUE(faults.Get("hot/x").ok());   // Skipped.
  EXPECT_FALSE(faults.Get("hot/x").ok());  // Fires.
  EXPECT_FALSE(faults.Get("hot/x").ok());  // Fires.
  EXPECT_TRUE(faults.Get("hot/x").ok());   // Exhausted.
}

TEST(FaultStoreTest, LatencyAdvancesTheClock) {
  ManualClock clock(0);
  FaultStore faults(std::make_shared<MemoryStore>("m", &clock), &clock);
  faults.AddRule({.kind = FaultKind::kLatency, .latency_micros = 2500});
  ASSERT_TRUE(faults.Put("x", "1").ok());
  EXPECT_EQ(clock.NowMicros(), 2500);
}

TEST(FaultStoreTest, SeededFaultsReplayExactly) {
  auto run = [](uint64_t seed) {
    FaultStore faults(std::make_shared<MemoryStore>());
    faults.SetSeeded({.transient = 0.2, .unknown_after_effect = 0.2, .deferred = 0.1}, seed);
    std::string trace;
    for (int i = 0; i < 200; ++i) {
      Result<bool> r = faults.PutIfAbsent("k/" + std::to_string(i % 50), "v");
      trace +=
          r.ok() ? (*r ? 'C' : 'E') : static_cast<char>('0' + static_cast<int>(r.status().kind()));
    }
    return trace;
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

TEST(LocalStoreTest, TemporaryFilesNeverAppearAndStaleOnesAreSwept) {
  TempDir dir;
  auto store = *LocalStore::Open(dir.path());
  ASSERT_TRUE(store->Put("x/y", "1").ok());
  // A crashed writer's leftover temporary file.
  std::string stale = dir.path() + "/.omnigraph-tmp/99999-0.tmp";
  int fd = ::open(stale.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "partial", 7), 7);
  ::close(fd);
  Result<std::vector<ObjectMeta>> all = ListAll(*store, "");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].name, "x/y");
  EXPECT_EQ(store->Get(".omnigraph-tmp/99999-0.tmp").status().kind(), Kind::kInvalidArgument);
  // Young temporary files survive a sweep by age; a sweep of everything removes it.
  ASSERT_TRUE(store->SweepTemporaryFiles(LocalStore::kStaleTempAgeMicros).ok());
  EXPECT_TRUE(std::filesystem::exists(stale));
  ASSERT_TRUE(store->SweepTemporaryFiles(0).ok());
  EXPECT_FALSE(std::filesystem::exists(stale));
}

TEST(LocalStoreTest, OpeningCreatesNothingUntilTheFirstWrite) {
  TempDir dir;
  const std::string root = dir.path() + "/a/b/root";
  auto store = *LocalStore::Open(root);
  // Reads of a root that does not exist find nothing and create nothing (a read command on a
  // missing path must leave no trace), nor does a delete.
  EXPECT_EQ(store->Get("x/y").status().kind(), Kind::kNotFound);
  EXPECT_EQ(store->Head("x/y").status().kind(), Kind::kNotFound);
  EXPECT_TRUE(ListAll(*store, "")->empty());
  EXPECT_TRUE(store->Delete("x/y").ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/a"));
  // The first write creates the root, its parents and the temporary directory.
  ASSERT_TRUE(*store->PutIfAbsent("x/y", "1"));
  EXPECT_EQ(store->Get("x/y")->data, "1");
  EXPECT_TRUE(std::filesystem::is_directory(root + "/.omnigraph-tmp"));
  // An existing directory that is not a store gains nothing from being opened and read.
  const std::string plain = dir.path() + "/plain";
  std::filesystem::create_directory(plain);
  auto reader = *LocalStore::Open(plain);
  EXPECT_TRUE(ListAll(*reader, "")->empty());
  EXPECT_TRUE(std::filesystem::is_empty(plain));
  // A root that is a file is refused.
  EXPECT_EQ(LocalStore::Open(root + "/x/y").status().code(), Code::kConfiguration);
}

TEST(LocalStoreTest, NameUsedAsBothObjectAndDirectoryIsRefused) {
  TempDir dir;
  auto store = *LocalStore::Open(dir.path());
  ASSERT_TRUE(store->Put("a/b", "1").ok());
  Status s = store->Put("a/b/c", "2");
  EXPECT_EQ(s.kind(), Kind::kInvalidArgument) << s.ToString();
  EXPECT_EQ(store->Get("a").status().kind(), Kind::kNotFound);
}

TEST(LocalStoreTest, ReopenSeesEarlierObjects) {
  TempDir dir;
  {
    auto store = *LocalStore::Open(dir.path() + "/g");
    ASSERT_TRUE(*store->PutIfAbsent("_graph/main/x.commit", "rec"));
  }
  auto store = *LocalStore::Open(dir.path() + "/g/");
  EXPECT_EQ(store->Get("_graph/main/x.commit")->data, "rec");
}

}  // namespace
}  // namespace omnigraph::storage

#include "storage/object_store_contract.h"

#include <atomic>
#include <barrier>
#include <thread>
#include <vector>

#include "base/clock.h"

namespace omnigraph::storage {

std::string ContractBackendName(const testing::TestParamInfo<ContractBackend>& info) {
  return info.param.name;
}

void ObjectStoreContract::SetUp() {
  store_ = GetParam().make();
  ASSERT_NE(store_, nullptr);
}

namespace {

std::vector<std::string> Names(const std::vector<ObjectMeta>& metas) {
  std::vector<std::string> out;
  for (const ObjectMeta& m : metas) out.push_back(m.name);
  return out;
}

TEST_P(ObjectStoreContract, GetOfAbsentNameIsNotFound) {
  Result<GetResult> r = store_->Get("no/such/object");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Kind::kNotFound);
  EXPECT_EQ(store_->Head("no/such/object").status().kind(), Kind::kNotFound);
}

TEST_P(ObjectStoreContract, PutThenGetReturnsBytesAndMetadata) {
  const int64_t before = SystemClock::Default()->NowMicros();
  const std::string data("hello\0world\xff", 12);
  ASSERT_TRUE(store_->Put("a/b/c.json", data).ok());
  Result<GetResult> r = store_->Get("a/b/c.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->data, data);
  EXPECT_EQ(r->meta.name, "a/b/c.json");
  EXPECT_EQ(r->meta.size_bytes, 12u);
  EXPECT_FALSE(r->meta.etag.empty());
  // Last-modified is the store's clock: allow a few seconds of skew from ours.
  EXPECT_GT(r->meta.last_modified_micros, before - 5'000'000);
  EXPECT_LT(r->meta.last_modified_micros, SystemClock::Default()->NowMicros() + 5'000'000);
  Result<ObjectMeta> head = store_->Head("a/b/c.json");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->size_bytes, 12u);
  EXPECT_EQ(head->etag, r->meta.etag);
}

TEST_P(ObjectStoreContract, EmptyObjectRoundTrips) {
  ASSERT_TRUE(store_->Put("empty", "").ok());
  Result<GetResult> r = store_->Get("empty");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data, "");
  EXPECT_EQ(r->meta.size_bytes, 0u);
}

TEST_P(ObjectStoreContract, PutReplacesAndChangesTheEtag) {
  ASSERT_TRUE(store_->Put("x", "one").ok());
  std::string etag1 = store_->Head("x")->etag;
  ASSERT_TRUE(store_->Put("x", "two").ok());
  Result<GetResult> r = store_->Get("x");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data, "two");
  EXPECT_NE(r->meta.etag, etag1);
  // Same bytes again still counts as a new write.
  ASSERT_TRUE(store_->Put("x", "two").ok());
  EXPECT_NE(store_->Head("x")->etag, r->meta.etag);
}

TEST_P(ObjectStoreContract, PutIfAbsentCreatesOnceAndLeavesTheWinnerUntouched) {
  Result<bool> first = store_->PutIfAbsent("fence/1", "winner");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(*first);
  std::string etag = store_->Head("fence/1")->etag;
  Result<bool> second = store_->PutIfAbsent("fence/1", "loser");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(*second);
  Result<GetResult> r = store_->Get("fence/1");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data, "winner");
  EXPECT_EQ(r->meta.etag, etag);
}

TEST_P(ObjectStoreContract, PutIfAbsentAfterDeleteCreatesAgain) {
  ASSERT_TRUE(*store_->PutIfAbsent("d", "1"));
  ASSERT_TRUE(store_->Delete("d").ok());
  Result<bool> again = store_->PutIfAbsent("d", "2");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(*again);
  EXPECT_EQ(store_->Get("d")->data, "2");
}

TEST_P(ObjectStoreContract, PutIfMatchSwapsOnlyOnTheCurrentEtag) {
  ASSERT_TRUE(store_->Put("meta.json", "v1").ok());
  std::string etag1 = store_->Head("meta.json")->etag;
  Result<std::string> swapped = store_->PutIfMatch("meta.json", "v2", etag1);
  ASSERT_TRUE(swapped.ok()) << swapped.status().ToString();
  EXPECT_NE(*swapped, etag1);
  EXPECT_EQ(store_->Head("meta.json")->etag, *swapped);
  EXPECT_EQ(store_->Get("meta.json")->data, "v2");

  Result<std::string> stale = store_->PutIfMatch("meta.json", "v3", etag1);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().kind(), Kind::kPrecondition);
  EXPECT_EQ(store_->Get("meta.json")->data, "v2");

  Result<std::string> absent = store_->PutIfMatch("nothing.json", "v1", etag1);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().kind(), Kind::kNotFound);
  EXPECT_EQ(store_->Head("nothing.json").status().kind(), Kind::kNotFound);
}

TEST_P(ObjectStoreContract, ByteRanges) {
  ASSERT_TRUE(store_->Put("r", "0123456789").ok());
  Result<GetResult> mid = store_->Get("r", ByteRange{2, 3});
  ASSERT_TRUE(mid.ok()) << mid.status().ToString();
  EXPECT_EQ(mid->data, "234");
  EXPECT_EQ(mid->meta.size_bytes, 10u);
  Result<GetResult> tail = store_->Get("r", ByteRange{7, 100});
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->data, "789");
  Result<GetResult> last = store_->Get("r", ByteRange{9, 1});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->data, "9");
  Result<GetResult> past = store_->Get("r", ByteRange{10, 1});
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().kind(), Kind::kInvalidArgument);
  EXPECT_EQ(store_->Get("r", ByteRange{0, 0}).status().kind(), Kind::kInvalidArgument);
  EXPECT_EQ(store_->Get("absent", ByteRange{0, 1}).status().kind(), Kind::kNotFound);
}

// An object larger than a local store's mapping threshold, with a size that is not a multiple
// of a page, and bytes that differ at every offset.
std::string LargeObject(char seed) {
  std::string out(300'001, '\0');
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>((i * 131 + seed) % 251);
  return out;
}

TEST_P(ObjectStoreContract, GetSharedReturnsWhatGetReturns) {
  const std::string large = LargeObject(7);
  ASSERT_TRUE(store_->Put("s/small", "0123456789").ok());
  ASSERT_TRUE(store_->Put("s/large", large).ok());
  for (const std::string name : {"s/small", "s/large"}) {
    SCOPED_TRACE(name);
    Result<GetResult> whole = store_->Get(name);
    Result<SharedGetResult> shared = store_->GetShared(name);
    ASSERT_TRUE(whole.ok() && shared.ok()) << shared.status().ToString();
    EXPECT_EQ(shared->data.view(), whole->data);
    EXPECT_EQ(shared->meta.size_bytes, whole->meta.size_bytes);
    EXPECT_EQ(shared->meta.etag, whole->meta.etag);
  }
  // Ranges at unaligned offsets, long and short, and one running past the end.
  const ByteRange ranges[] = {{2, 3}, {4097, 270'000}, {5, 262'144}, {299'000, 5'000}};
  for (const ByteRange& range : ranges) {
    SCOPED_TRACE(std::to_string(range.offset) + "+" + std::to_string(range.length));
    Result<SharedGetResult> shared = store_->GetShared("s/large", range);
    ASSERT_TRUE(shared.ok()) << shared.status().ToString();
    EXPECT_EQ(shared->data.view(), large.substr(range.offset, range.length));
    EXPECT_EQ(shared->meta.size_bytes, large.size());
  }
  EXPECT_EQ(store_->GetShared("s/small", ByteRange{10, 1}).status().kind(), Kind::kInvalidArgument);
  EXPECT_EQ(store_->GetShared("s/small", ByteRange{0, 0}).status().kind(), Kind::kInvalidArgument);
}

TEST_P(ObjectStoreContract, GetSharedOfAbsentOrEmptyObjects) {
  EXPECT_EQ(store_->GetShared("no/such/object").status().kind(), Kind::kNotFound);
  EXPECT_EQ(store_->GetShared("no/such/object", ByteRange{0, 1}).status().kind(), Kind::kNotFound);
  ASSERT_TRUE(store_->Put("empty", "").ok());
  Result<SharedGetResult> empty = store_->GetShared("empty");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->data.empty());
  EXPECT_EQ(empty->meta.size_bytes, 0u);
}

TEST_P(ObjectStoreContract, GetSharedBytesOutliveAReplaceOrDelete) {
  const std::string before = LargeObject(1);
  ASSERT_TRUE(store_->Put("held", before).ok());
  Result<SharedGetResult> whole = store_->GetShared("held");
  Result<SharedGetResult> part = store_->GetShared("held", ByteRange{1000, 290'000});
  ASSERT_TRUE(whole.ok() && part.ok());
  ASSERT_TRUE(store_->Put("held", LargeObject(2)).ok());
  EXPECT_EQ(whole->data.view(), before);
  EXPECT_EQ(store_->Get("held")->data, LargeObject(2));
  ASSERT_TRUE(store_->Delete("held").ok());
  EXPECT_EQ(whole->data.view(), before);
  EXPECT_EQ(part->data.view(), before.substr(1000, 290'000));
  // A slice keeps the bytes alive after the result that made it is gone.
  SharedBytes slice = whole->data.Slice(299'990, 100);
  whole = Status(Code::kNotFound, "dropped");
  EXPECT_EQ(slice.view(), before.substr(299'990));
}

TEST_P(ObjectStoreContract, ListIsInByteOrderUnderAPrefix) {
  for (const char* name : {"p/b", "p/a/z", "p/a.b", "p/a0", "p/a/a", "q/x", "p-/y", "pa"}) {
    ASSERT_TRUE(store_->Put(name, name).ok()) << name;
  }
  Result<std::vector<ObjectMeta>> all = ListAll(*store_, "p/");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  // '.' (0x2e) < '/' (0x2f) < '0' (0x30): byte order, not directory order.
  EXPECT_EQ(Names(*all), (std::vector<std::string>{"p/a.b", "p/a/a", "p/a/z", "p/a0", "p/b"}));
  for (const ObjectMeta& m : *all) {
    EXPECT_EQ(m.size_bytes, m.name.size());
    EXPECT_FALSE(m.etag.empty());
    EXPECT_GT(m.last_modified_micros, 0);
  }
  Result<std::vector<ObjectMeta>> partial = ListAll(*store_, "p/a");
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(Names(*partial), (std::vector<std::string>{"p/a.b", "p/a/a", "p/a/z", "p/a0"}));
  Result<std::vector<ObjectMeta>> everything = ListAll(*store_, "");
  ASSERT_TRUE(everything.ok());
  EXPECT_EQ(Names(*everything), (std::vector<std::string>{"p-/y", "p/a.b", "p/a/a", "p/a/z", "p/a0",
                                                          "p/b", "pa", "q/x"}));
  Result<std::vector<ObjectMeta>> none = ListAll(*store_, "zzz/");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(ObjectStoreContract, ListHonoursStartAfterAndPaginates) {
  std::vector<std::string> names;
  for (int i = 0; i < 7; ++i) {
    names.push_back("s/" + std::to_string(i));
    ASSERT_TRUE(store_->Put(names.back(), "x").ok());
  }
  ListOptions options;
  options.prefix = "s/";
  options.page_size = 3;
  std::vector<std::string> seen;
  int pages = 0;
  while (true) {
    Result<ListPage> page = store_->List(options);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ++pages;
    EXPECT_LE(page->objects.size(), 3u);
    for (const ObjectMeta& m : page->objects) seen.push_back(m.name);
    if (page->continuation.empty()) break;
    options.continuation = page->continuation;
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(seen, names);
  EXPECT_EQ(pages, 3);

  ListOptions after;
  after.prefix = "s/";
  after.start_after = "s/4";
  Result<ListPage> rest = store_->List(after);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(Names(rest->objects), (std::vector<std::string>{"s/5", "s/6"}));
  EXPECT_TRUE(rest->continuation.empty());

  ListOptions bad;
  bad.page_size = 0;
  EXPECT_EQ(store_->List(bad).status().kind(), Kind::kInvalidArgument);
}

TEST_P(ObjectStoreContract, DeleteRemovesAndToleratesAbsence) {
  ASSERT_TRUE(store_->Put("del/me", "x").ok());
  ASSERT_TRUE(store_->Delete("del/me").ok());
  EXPECT_EQ(store_->Get("del/me").status().kind(), Kind::kNotFound);
  EXPECT_TRUE(store_->Delete("del/me").ok());
  EXPECT_TRUE(ListAll(*store_, "del/")->empty());
}

TEST_P(ObjectStoreContract, InvalidNamesAreRefusedAndTouchNothing) {
  const std::vector<std::string> bad = {"",
                                        "/a",
                                        "a/",
                                        "a//b",
                                        "./a",
                                        "a/./b",
                                        "a/..",
                                        "../a",
                                        "a\nb",
                                        "a\x7f",
                                        std::string(1025, 'n'),
                                        std::string("a\0b", 3)};
  for (const std::string& name : bad) {
    SCOPED_TRACE(testing::PrintToString(name));
    EXPECT_EQ(store_->Put(name, "x").kind(), Kind::kInvalidArgument);
    EXPECT_EQ(store_->PutIfAbsent(name, "x").status().kind(), Kind::kInvalidArgument);
    EXPECT_EQ(store_->PutIfMatch(name, "x", "e").status().kind(), Kind::kInvalidArgument);
    EXPECT_EQ(store_->Get(name).status().kind(), Kind::kInvalidArgument);
    EXPECT_EQ(store_->Head(name).status().kind(), Kind::kInvalidArgument);
    EXPECT_EQ(store_->Delete(name).kind(), Kind::kInvalidArgument);
  }
  // Exactly the limit is fine (segments of at most 255 bytes suit every backend).
  std::string longest;
  for (int i = 0; i < 4; ++i) longest += std::string(200, 'n') + "/";
  longest += std::string(1024 - longest.size(), 'n');
  ASSERT_EQ(longest.size(), kObjectNameBytesMax);
  EXPECT_TRUE(store_->Put(longest, "x").ok());
  Result<std::vector<ObjectMeta>> all = ListAll(*store_, "");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].name, longest);
}

TEST_P(ObjectStoreContract, PutIfAbsentHasOneWinnerPerNameAcrossThreads) {
  constexpr int kThreads = 8;
  constexpr int kNames = 100;
  std::barrier start(kThreads);
  std::vector<std::vector<int>> wins(kThreads);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int n = 0; n < kNames; ++n) {
        Result<bool> r =
            store_->PutIfAbsent("race/" + std::to_string(n), "thread-" + std::to_string(t));
        if (!r.ok()) {
          ++errors;
        } else if (*r) {
          wins[t].push_back(n);
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  std::vector<int> winner(kNames, -1);
  for (int t = 0; t < kThreads; ++t) {
    for (int n : wins[t]) {
      EXPECT_EQ(winner[n], -1) << "two winners for name " << n;
      winner[n] = t;
    }
  }
  for (int n = 0; n < kNames; ++n) {
    ASSERT_NE(winner[n], -1) << "no winner for name " << n;
    EXPECT_EQ(store_->Get("race/" + std::to_string(n))->data,
              "thread-" + std::to_string(winner[n]));
  }
}

TEST_P(ObjectStoreContract, PutIfMatchHasOneWinnerAcrossThreads) {
  constexpr int kThreads = 8;
  for (int round = 0; round < 10; ++round) {
    const std::string name = "cas/" + std::to_string(round);
    ASSERT_TRUE(store_->Put(name, "base").ok());
    const std::string etag = store_->Head(name)->etag;
    std::barrier start(kThreads);
    std::atomic<int> won{0}, lost{0}, other{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        Result<std::string> r = store_->PutIfMatch(name, "t" + std::to_string(t), etag);
        if (r.ok()) {
          ++won;
        } else if (r.status().kind() == Kind::kPrecondition) {
          ++lost;
        } else {
          ++other;
        }
      });
    }
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(won.load(), 1) << "round " << round;
    EXPECT_EQ(lost.load(), kThreads - 1);
    EXPECT_EQ(other.load(), 0);
  }
}

}  // namespace
}  // namespace omnigraph::storage

#include "commit/history.h"

#include <gtest/gtest.h>

#include "commit/test_streams.h"

namespace omnigraph::commit {
namespace {

using testing::BumpOneTable;
using testing::TestGenesis;

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(CreateMainStream(store_.runtime, TestGenesis(), std::nullopt).ok());
    main_ = std::move(*Stream::Open(store_.runtime, "main"));
    for (int i = 0; i < 120; ++i) {
      PublishRequest request;
      request.stage = BumpOneTable();
      ASSERT_TRUE(main_->Publish(request).ok());
    }
  }
  testing::TestStore store_{false};
  std::unique_ptr<Stream> main_;
};

TEST_F(HistoryTest, PagesNewestFirstBackToGenesis) {
  std::vector<Record> all;
  std::optional<HistoryPosition> next = HistoryPosition{"main", 120};
  std::vector<size_t> sizes;
  while (next) {
    // Cursors are opaque strings for the caller.
    Result<HistoryPosition> from = HistoryPosition::FromCursor(next->ToCursor());
    ASSERT_TRUE(from.ok());
    Result<HistoryPage> page = ReadHistory(store_.runtime, *from, 50);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    sizes.push_back(page->commits.size());
    for (Record& r : page->commits) all.push_back(std::move(r));
    next = page->next;
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{50, 50, 21}));
  ASSERT_EQ(all.size(), 121u);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].seq, 120 - i);
    if (i + 1 < all.size()) {
      EXPECT_EQ(all[i].parent_commit_id, all[i + 1].commit_id);
    }
  }
  EXPECT_FALSE(all.back().parent_commit_id.has_value());
}

TEST_F(HistoryTest, PageReadsOnlyItsRecordsAndTheMetadata) {
  storage::OpCounts before = store_.counting->Snapshot();
  Result<HistoryPage> page = ReadHistory(store_.runtime, {"main", 100}, 10);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ((store_.counting->Snapshot() - before).gets, 11u);
  ASSERT_TRUE(page->next.has_value());
  EXPECT_EQ(page->next->seq, 90u);
}

TEST_F(HistoryTest, BranchHistoryContinuesIntoTheParentAtTheForkPoint) {
  Result<GraphState> fork = main_->ReadAt(60);
  ASSERT_TRUE(fork.ok());
  const std::string key = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  StreamMetadata meta;
  meta.key = key;
  meta.branch = "feature";
  meta.native_name = "feature." + key;
  meta.parent_stream = "main";
  meta.fork_seq = 60;
  meta.fork_commit_id = fork->head_commit_id;
  ASSERT_TRUE(
      store_.runtime.store->PutIfAbsent(StreamMetadataName(key), EncodeStreamMetadata(meta)).ok());
  GraphState fork_state = *fork;
  fork_state.stream = key;
  ASSERT_TRUE(
      store_.runtime.store
          ->PutIfAbsent(CheckpointName(key, 60), *EncodeCheckpoint(fork_state.ToCheckpoint()))
          .ok());
  std::unique_ptr<Stream> branch = Stream::FromMetadata(store_.runtime, meta);
  for (int i = 0; i < 10; ++i) {
    PublishRequest request;
    request.stage = BumpOneTable();
    Result<PublishResult> r = branch->Publish(request);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  Result<HistoryPage> page = ReadHistory(store_.runtime, {key, 70}, 15);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->commits.size(), 15u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(page->commits[i].stream, key);
  EXPECT_EQ(page->commits[10].stream, "main");
  EXPECT_EQ(page->commits[10].seq, 60u);
  EXPECT_EQ(page->commits[9].parent_commit_id, page->commits[10].commit_id);
  ASSERT_TRUE(page->next.has_value());
  Result<HistoryPage> rest = ReadHistory(store_.runtime, *page->next, 1000);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->commits.size(), 56u);  // main 55..0
  EXPECT_FALSE(rest->next.has_value());
}

TEST_F(HistoryTest, BadInputAndBrokenChains) {
  EXPECT_EQ(ReadHistory(store_.runtime, {"main", 121}, 10).status().code(), Code::kCommitNotFound);
  EXPECT_EQ(ReadHistory(store_.runtime, {"main", 10}, 0).status().code(), Code::kInvalidArgument);
  EXPECT_FALSE(HistoryPosition::FromCursor("main:").ok());
  EXPECT_FALSE(HistoryPosition::FromCursor("nope:3").ok());
  EXPECT_FALSE(HistoryPosition::FromCursor("main:3x").ok());
  const std::string name = RecordName("main", 50);
  Json j = Json::parse(store_.runtime.store->Get(name)->data);
  j["commit_id"] = "main.50.0000000000";
  ASSERT_TRUE(store_.runtime.store->Put(name, j.dump()).ok());
  Result<HistoryPage> page = ReadHistory(store_.runtime, {"main", 60}, 20);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), Code::kCorruption);
  EXPECT_EQ(page.status().object(), name);
}

}  // namespace
}  // namespace omnigraph::commit

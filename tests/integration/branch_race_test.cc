// Branch creates and deletes racing on every real server (S3 on Ceph RGW, Azure Blob on Azurite):
// the twin of src/commit/branches_concurrency_test.cc. Branch deletes are the one user of
// PutIfMatch, whose losers RGW may answer with 500.
#include <gtest/gtest.h>

#include <thread>

#include "commit/branches.h"
#include "commit/test_streams.h"
#include "storage/azure/azure_test_util.h"
#include "storage/s3/s3_test_util.h"
#include "storage/test_util.h"
#include "storage/uri.h"

namespace omnigraph::commit {
namespace {

using storage::RealServer;

using testing::TestGenesis;

class BranchRaceTest : public ::testing::TestWithParam<RealServer> {};

INSTANTIATE_TEST_SUITE_P(RealServers, BranchRaceTest,
                         ::testing::Values(storage::s3::S3Server(), storage::azure::AzureServer()),
                         storage::RealServerName);

TEST_P(BranchRaceTest, EightProcessesCreatingOneNameHaveExactlyOneWinner) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Result<std::shared_ptr<storage::ObjectStore>> opened = GetParam().open("branch-processes");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<storage::ObjectStore> root = *opened;
  const std::string uri = root->Describe();
  storage::Runtime rt = storage::Runtime::ForTest(root);
  ASSERT_TRUE(CreateMainStream(rt, TestGenesis(), std::nullopt).ok());
  for (int round = 0; round < 3; ++round) {
    const std::string name = "contested-" + std::to_string(round);
    std::vector<storage::ChildResult> children =
        storage::RunChildrenTogether(8, [&](int p, int out) {
          // Each process opens its own store: connections are never shared across a fork.
          auto store = storage::OpenStore(uri);
          if (!store.ok()) return 3;
          storage::Runtime child = storage::Runtime::ForTest(*store, 77 + p + 10 * round);
          auto main = Stream::Open(child, "main");
          if (!main.ok()) return 4;
          auto head = (*main)->ReadHead();
          if (!head.ok()) return 5;
          Result<StreamMetadata> r =
              CreateBranch(child, name, ForkPoint{**head, "main", true}, "p" + std::to_string(p));
          std::string line = r.ok()                                     ? "won " + r->key
                             : r.status().code() == Code::kBranchExists ? "lost"
                                                                        : r.status().ToString();
          return storage::WriteToFd(out, line) ? 0 : 6;
        });
    int won = 0;
    std::string winner_key;
    for (const storage::ChildResult& c : children) {
      ASSERT_TRUE(c.exited_zero()) << c.wait_status;
      if (c.output.rfind("won ", 0) == 0) {
        ++won;
        winner_key = c.output.substr(4);
      } else {
        EXPECT_EQ(c.output, "lost");
      }
    }
    EXPECT_EQ(won, 1) << name;
    Result<ResolvedBranch> resolved = ResolveBranch(rt, name);
    ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
    EXPECT_EQ(resolved->metadata.key, winner_key);
    int live = 0;
    Result<std::vector<storage::ObjectMeta>> streams = storage::ListAll(*root, "_graph/streams/");
    ASSERT_TRUE(streams.ok());
    for (const storage::ObjectMeta& m : *streams) {
      Result<storage::GetResult> got = root->Get(m.name);
      ASSERT_TRUE(got.ok());
      Result<StreamMetadata> meta = DecodeStreamMetadata(got->data, m.name);
      ASSERT_TRUE(meta.ok());
      if (meta->branch == name && !meta->retired) ++live;
    }
    EXPECT_EQ(live, 1);
  }
}

TEST_P(BranchRaceTest, CreateRacingADeleteOfTheSameNameLeavesOneConsistentAnswer) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Result<std::shared_ptr<storage::ObjectStore>> opened = GetParam().open("branch-threads");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<storage::ObjectStore> store = *opened;
  storage::Runtime runtime = storage::Runtime::ForTest(store);
  ASSERT_TRUE(CreateMainStream(runtime, TestGenesis(), std::nullopt).ok());
  std::unique_ptr<Stream> main = std::move(*Stream::Open(runtime, "main"));
  GraphState head = **main->ReadHead();
  for (int round = 0; round < 10; ++round) {
    ASSERT_TRUE(CreateBranch(runtime, "r", ForkPoint{head, "main", true}, "x").ok());
    const std::string old_key = ResolveBranch(runtime, "r")->metadata.key;
    Status deleted;
    Result<StreamMetadata> created = Status(Code::kInternal, "not run");
    std::thread deleter([&] {
      storage::Runtime rt = storage::Runtime::ForTest(store, 1 + round);
      deleted = DeleteBranch(rt, "r", std::nullopt);
    });
    std::thread creator([&] {
      storage::Runtime rt = storage::Runtime::ForTest(store, 100 + round);
      created = CreateBranch(rt, "r", ForkPoint{head, "main", true}, "y");
    });
    deleter.join();
    creator.join();
    ASSERT_TRUE(deleted.ok()) << deleted.ToString();
    Result<ResolvedBranch> now = ResolveBranch(runtime, "r");
    if (created.ok()) {
      ASSERT_TRUE(now.ok()) << now.status().ToString();
      EXPECT_EQ(now->metadata.key, created->key);
      EXPECT_NE(created->key, old_key);
      ASSERT_TRUE(DeleteBranch(runtime, "r", std::nullopt).ok());
    } else {
      EXPECT_EQ(created.status().code(), Code::kBranchExists) << created.status().ToString();
      EXPECT_EQ(now.status().code(), Code::kBranchNotFound);
    }
  }
}

}  // namespace
}  // namespace omnigraph::commit

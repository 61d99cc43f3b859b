// The refused-write listing tests on the memory and local stores (rejected_write_test.h).
#include <atomic>
#include <filesystem>
#include <fstream>

#include "engine/graph/graph.h"
#include "engine/write/rejected_write_test.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"

namespace omnigraph::engine {
namespace {

RejectedWriteBackend MemoryBackend() {
  return {"memory", [] { return std::string(); },
          [](std::string_view) -> Result<std::shared_ptr<storage::ObjectStore>> {
            return std::shared_ptr<storage::ObjectStore>(std::make_shared<storage::MemoryStore>());
          }};
}

RejectedWriteBackend LocalBackend() {
  return {"local", [] { return std::string(); },
          [](std::string_view label) -> Result<std::shared_ptr<storage::ObjectStore>> {
            // One folder per store, kept until the process ends (the test's graph lives there).
            static storage::TempDir* root = new storage::TempDir();
            static std::atomic<int> n{0};
            OMNIGRAPH_ASSIGN_OR_RETURN(
                std::unique_ptr<storage::LocalStore> store,
                storage::LocalStore::Open(root->path() + "/" + std::string(label) + "-" +
                                          std::to_string(n++)));
            return std::shared_ptr<storage::ObjectStore>(std::move(store));
          }};
}

INSTANTIATE_TEST_SUITE_P(LocalStores, RejectedWriteTest,
                         testing::Values(MemoryBackend(), LocalBackend()),
                         RejectedWriteBackendName);

// What "empty" means for a local folder (decision 84): absent, or no file under it; empty
// subfolders are not objects, a hidden file is one.
TEST(InitRootTest, AFolderWithOnlyEmptySubfoldersIsEmptyAndAHiddenFileIsNot) {
  storage::TempDir dir;
  constexpr std::string_view kSchema = "node Person { name: String @key }";
  const std::string empty = dir.path() + "/empty";
  std::filesystem::create_directories(empty + "/sub/deeper");
  Result<std::unique_ptr<storage::LocalStore>> store = storage::LocalStore::Open(empty);
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE(Graph::Init(storage::Runtime::ForTest(std::move(*store), 1), kSchema).ok());

  const std::string absent = dir.path() + "/absent/graph";
  store = storage::LocalStore::Open(absent);
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE(Graph::Init(storage::Runtime::ForTest(std::move(*store), 1), kSchema).ok());

  const std::string hidden = dir.path() + "/hidden";
  std::filesystem::create_directories(hidden);
  std::ofstream(hidden + "/.keep") << "x";
  store = storage::LocalStore::Open(hidden);
  ASSERT_TRUE(store.ok());
  Result<std::unique_ptr<Graph>> refused =
      Graph::Init(storage::Runtime::ForTest(std::move(*store), 1), kSchema);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kAlreadyExists);
  EXPECT_NE(refused.status().message().find("'.keep'"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(hidden),
                          std::filesystem::directory_iterator()),
            1);
}

}  // namespace
}  // namespace omnigraph::engine

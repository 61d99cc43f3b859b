#include "engine/graph/schema_archive.h"

#include <gtest/gtest.h>

#include <memory>

#include "commit/names.h"
#include "schema/ir_json.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

class SchemaArchiveTest : public ::testing::Test {
 protected:
  SchemaArchiveTest()
      : store_(std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>())),
        bytes_(schema::ArchiveBytes("01GRAPH", 1, "node Person { name: String @key }", ir_)) {}

  commit::SchemaRef RefOf(const std::string& content_hash) const {
    return commit::SchemaRef{"01GRAPH", schema::IrHash(ir_), 1, content_hash, Json::object()};
  }

  schema::SchemaIr ir_;
  std::shared_ptr<storage::CountingStore> store_;
  std::string bytes_;
};

TEST_F(SchemaArchiveTest, AStoredArchiveLoadsBackUnderItsContentHash) {
  Result<std::string> hash = StoreSchemaArchive(*store_, bytes_);
  ASSERT_TRUE(hash.ok()) << hash.status().ToString();
  EXPECT_EQ(*hash, schema::ContentHash(bytes_));
  EXPECT_EQ(store_->Snapshot().put_if_absent, 1u);
  EXPECT_EQ(store_->Snapshot().reads(), 0u);  // A new archive is one conditional create.
  store_->Reset();
  Result<schema::SchemaArchive> loaded = LoadSchemaArchive(*store_, RefOf(*hash));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->identity_domain, "01GRAPH");
  EXPECT_EQ(loaded->source, "node Person { name: String @key }");
  EXPECT_EQ(store_->Snapshot().writes(), 0u);
}

TEST_F(SchemaArchiveTest, StoringTheSameArchiveAgainIsIdempotent) {
  ASSERT_TRUE(StoreSchemaArchive(*store_, bytes_).ok());
  Result<std::string> again = StoreSchemaArchive(*store_, bytes_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, schema::ContentHash(bytes_));
}

TEST_F(SchemaArchiveTest, OtherBytesUnderTheNameAreCorruptionNamingTheObject) {
  const std::string name = commit::SchemaArchiveName(schema::ContentHash(bytes_));
  ASSERT_TRUE(store_->Put(name, "{\"format\":1}").ok());
  Result<std::string> stored = StoreSchemaArchive(*store_, bytes_);
  ASSERT_FALSE(stored.ok());
  EXPECT_EQ(stored.status().code(), Code::kCorruption);
  EXPECT_EQ(stored.status().object(), name);
  EXPECT_EQ(stored.status().message(), "schema archive differs from its content hash");

  Result<schema::SchemaArchive> loaded =
      LoadSchemaArchive(*store_, RefOf(schema::ContentHash(bytes_)));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), Code::kCorruption);
  EXPECT_EQ(loaded.status().object(), name);
  EXPECT_EQ(loaded.status().message(), "schema archive does not match its content hash");
}

TEST_F(SchemaArchiveTest, AMissingArchiveIsCorruptionNamingTheObject) {
  const std::string hash = schema::ContentHash(bytes_);
  Result<schema::SchemaArchive> loaded = LoadSchemaArchive(*store_, RefOf(hash));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), Code::kCorruption);
  EXPECT_EQ(loaded.status().object(), commit::SchemaArchiveName(hash));
  EXPECT_EQ(loaded.status().message(), "the schema archive a record names is missing");
}

TEST_F(SchemaArchiveTest, AnArchiveThatMatchesItsHashButIsNotAnArchiveNamesTheObject) {
  const std::string junk = "{\"format\":1,\"source\":7}";
  const std::string hash = schema::ContentHash(junk);
  ASSERT_TRUE(store_->Put(commit::SchemaArchiveName(hash), junk).ok());
  Result<schema::SchemaArchive> loaded = LoadSchemaArchive(*store_, RefOf(hash));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), Code::kCorruption);
  EXPECT_EQ(loaded.status().object(), commit::SchemaArchiveName(hash));
}

}  // namespace
}  // namespace omnigraph::engine

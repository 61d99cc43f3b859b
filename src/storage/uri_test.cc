#include "storage/uri.h"

#include <gtest/gtest.h>

#include "storage/memory_store.h"
#include "storage/test_util.h"

namespace omnigraph::storage {
namespace {

TEST(StoreUriTest, ParsesEveryScheme) {
  Result<StoreUri> plain = ParseStoreUri("/var/graphs/g1");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->scheme, Scheme::kFile);
  EXPECT_EQ(plain->location, "/var/graphs/g1");
  Result<StoreUri> relative = ParseStoreUri("graphs/g1");
  ASSERT_TRUE(relative.ok());
  EXPECT_EQ(relative->location, "graphs/g1");
  Result<StoreUri> file = ParseStoreUri("file:///var/g");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->scheme, Scheme::kFile);
  EXPECT_EQ(file->location, "/var/g");
  Result<StoreUri> mem = ParseStoreUri("memory://t1");
  ASSERT_TRUE(mem.ok());
  EXPECT_EQ(mem->scheme, Scheme::kMemory);
  EXPECT_EQ(mem->location, "t1");
  Result<StoreUri> s3 = ParseStoreUri("s3://my-bucket/graphs/one/");
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->scheme, Scheme::kS3);
  EXPECT_EQ(s3->location, "my-bucket");
  EXPECT_EQ(s3->prefix, "graphs/one");
  EXPECT_EQ(s3->ToString(), "s3://my-bucket/graphs/one");
  Result<StoreUri> az = ParseStoreUri("az://container");
  ASSERT_TRUE(az.ok());
  EXPECT_EQ(az->scheme, Scheme::kAzure);
  EXPECT_EQ(az->prefix, "");
}

TEST(StoreUriTest, RejectsMalformedUrisWithAReason) {
  struct Case {
    const char* uri;
    const char* reason;
  };
  for (const Case& c :
       {Case{"", "it is empty"}, Case{"ftp://x/y", "unknown scheme 'ftp'"},
        Case{"file://relative/path", "absolute path"}, Case{"memory://", "needs a name"},
        Case{"memory://a/b", "without '/'"}, Case{"s3:///prefix", "the bucket is empty"},
        Case{"s3://Bucket/x", "lower-case"}, Case{"s3://b/a//c", "empty segment"},
        Case{"az://", "the container is empty"}, Case{"/tmp/a\nb", "control character"}}) {
    Result<StoreUri> r = ParseStoreUri(c.uri);
    ASSERT_FALSE(r.ok()) << c.uri;
    EXPECT_EQ(r.status().kind(), Kind::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.reason), std::string::npos)
        << c.uri << ": " << r.status().message();
  }
}

TEST(StoreUriTest, OpenSharesMemoryStoresByName) {
  Result<std::shared_ptr<ObjectStore>> a = OpenStore("memory://shared-test");
  Result<std::shared_ptr<ObjectStore>> b = OpenStore("memory://shared-test");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->Put("x", "1").ok());
  EXPECT_EQ((*b)->Get("x")->data, "1");
  // Without Azure variables, or with them but no such container: a setup problem either way.
  EXPECT_EQ(OpenStore("az://no-such-container-for-uri-test/p").status().kind(),
            Kind::kConfiguration);
  TempDir dir;
  Result<std::shared_ptr<ObjectStore>> local = OpenStore("file://" + dir.path() + "/g");
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ((*local)->Describe(), "file://" + dir.path() + "/g");
}

TEST(RuntimeTest, TestRuntimeIsDeterministic) {
  Runtime a = Runtime::ForTest(std::make_shared<MemoryStore>(), 5);
  Runtime b = Runtime::ForTest(std::make_shared<MemoryStore>(), 5);
  EXPECT_EQ(a.random->Next64(), b.random->Next64());
  EXPECT_EQ(a.clock->NowMicros(), b.clock->NowMicros());
  EXPECT_EQ(a.executor->Parallelism(), 1u);
}

}  // namespace
}  // namespace omnigraph::storage

#include "base/lru_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace omnigraph {
namespace {

TEST(LruCacheTest, EvictsTheLeastRecentlyUsedWhenACountCapacityIsExceeded) {
  LruCache<int> cache(2);
  ASSERT_TRUE(cache.Put("a", 1));
  ASSERT_TRUE(cache.Put("b", 2));
  ASSERT_NE(cache.Find("a"), nullptr);  // "a" is now the most recent; "b" the least.
  ASSERT_TRUE(cache.Put("c", 3));
  EXPECT_EQ(cache.Find("b"), nullptr);
  ASSERT_NE(cache.Find("a"), nullptr);
  EXPECT_EQ(*cache.Find("a"), 1);
  EXPECT_EQ(*cache.Find("c"), 3);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.charged(), 2u);
}

TEST(LruCacheTest, ChargesBoundTheBytesAndAnOversizedEntryIsNotKept) {
  LruCache<std::string> cache(100);
  ASSERT_TRUE(cache.Put("small", "s", 10));
  ASSERT_TRUE(cache.Put("mid", "m", 60));
  // 10 + 60 + 40 = 110 > 100: the least recently used ("small") goes, and only it.
  ASSERT_TRUE(cache.Put("other", "o", 40));
  EXPECT_FALSE(cache.Contains("small"));
  EXPECT_TRUE(cache.Contains("mid"));
  EXPECT_EQ(cache.charged(), 100u);
  // Larger than the whole capacity: refused, nothing else evicted, the old value under the key
  // dropped.
  EXPECT_FALSE(cache.Put("mid", "huge", 101));
  EXPECT_FALSE(cache.Contains("mid"));
  EXPECT_TRUE(cache.Contains("other"));
  EXPECT_EQ(cache.charged(), 40u);
}

TEST(LruCacheTest, ReplacingAKeyRechargesItAndMakesItTheMostRecent) {
  LruCache<int> cache(3);
  ASSERT_TRUE(cache.Put("a", 1));
  ASSERT_TRUE(cache.Put("b", 2));
  ASSERT_TRUE(cache.Put("a", 10, 2));  // a: charge 2, most recent; total 3.
  EXPECT_EQ(cache.charged(), 3u);
  ASSERT_TRUE(cache.Put("c", 3));  // Total 4: "b", the least recent, goes.
  EXPECT_FALSE(cache.Contains("b"));
  EXPECT_EQ(*cache.Find("a"), 10);
  EXPECT_TRUE(cache.Erase("a"));
  EXPECT_FALSE(cache.Erase("a"));
  EXPECT_EQ(cache.charged(), 1u);
}

}  // namespace
}  // namespace omnigraph

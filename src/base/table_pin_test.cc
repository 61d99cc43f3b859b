#include "base/table_pin.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace omnigraph {
namespace {

TEST(TableIdTest, RootIsTheZeroPaddedHexOfIdAndIncarnation) {
  EXPECT_EQ((TableId{1, 1}.Root()), "tables/0000000000000001-0000000000000001");
  EXPECT_EQ((TableId{0xabc, 2}.Root()), "tables/0000000000000abc-0000000000000002");
  EXPECT_EQ((TableId{UINT64_MAX, 0}.Root()), "tables/ffffffffffffffff-0000000000000000");
}

TEST(TableIdTest, OrdersByStableIdThenIncarnation) {
  EXPECT_LT((TableId{1, 9}), (TableId{2, 1}));
  EXPECT_LT((TableId{2, 1}), (TableId{2, 2}));
  EXPECT_EQ((TableId{3, 4}), (TableId{3, 4}));
  std::set<TableId> ids{{2, 1}, {1, 2}, {1, 1}};
  std::vector<TableId> ordered(ids.begin(), ids.end());
  EXPECT_EQ(ordered, (std::vector<TableId>{{1, 1}, {1, 2}, {2, 1}}));
}

TEST(TablePinTest, TableIsTheIdentityAndEqualityIncludesExtra) {
  TablePin pin{7, 3, "node:Person", 5, 5, "txn", 10, Json::object()};
  EXPECT_EQ(pin.table(), (TableId{7, 3}));
  TablePin other = pin;
  EXPECT_EQ(pin, other);
  other.extra["future"] = 1;
  EXPECT_NE(pin, other);
}

}  // namespace
}  // namespace omnigraph

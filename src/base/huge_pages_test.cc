#include "base/huge_pages.h"

#include <gtest/gtest.h>

namespace omnigraph {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kHuge = size_t{2} << 20;
constexpr size_t kMiB = size_t{1} << 20;

// A machine whose page cache filled memory: few free blocks of 2 MiB (order 9) or 4 MiB (10).
constexpr std::string_view kFull =
    "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1   "
    "   3 \n"
    "Node 0, zone    DMA32    821    161    592    395    192    102    101     28      1      0   "
    "   0 \n"
    "Node 0, zone   Normal   2929   3061   2591   3607     86     37      1      0      0      1   "
    "   0 \n";

TEST(HugePagesTest, CountsOnlyFreeBlocksOfAtLeastTwoMiBInEveryZone) {
  // DMA: one block of 2 MiB and three of 4 MiB (its 1 MiB block does not count); DMA32: none of
  // 2 MiB or more; Normal: one of 2 MiB.
  EXPECT_EQ(FreeHugeBlockBytes(kFull, kPage, kHuge), (2 + 3 * 4 + 2) * kMiB);
}

TEST(HugePagesTest, ALineWithoutAZoneOrNumbersCountsNothing) {
  EXPECT_EQ(FreeHugeBlockBytes("", kPage, kHuge), 0u);
  EXPECT_EQ(FreeHugeBlockBytes("garbage\nNode 0, zone Normal x y\n", kPage, kHuge), 0u);
}

TEST(HugePagesTest, AnArrayGetsHugePagesOnlyWithHeadroomLeft) {
  const size_t free_huge = FreeHugeBlockBytes(kFull, kPage, kHuge);
  EXPECT_FALSE(HugePagesCheap(184 * kMiB, free_huge));
  EXPECT_FALSE(HugePagesCheap(2 * kMiB, free_huge));
  EXPECT_TRUE(HugePagesCheap(184 * kMiB, 184 * kMiB + kHugeHeadroomBytes));
  EXPECT_FALSE(HugePagesCheap(184 * kMiB, 184 * kMiB + kHugeHeadroomBytes - 1));
}

}  // namespace
}  // namespace omnigraph

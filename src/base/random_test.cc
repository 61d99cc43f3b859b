#include "base/random.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace omnigraph {
namespace {

std::vector<uint64_t> Draw(Random& r, int n) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(r.Next64());
  return out;
}

TEST(RandomTest, SameSeedSameSequence) {
  Random a(12345), b(12345), c(12346);
  std::vector<uint64_t> da = Draw(a, 100);
  EXPECT_EQ(da, Draw(b, 100));
  EXPECT_NE(da, Draw(c, 100));
}

TEST(RandomTest, ForksAreDeterministicAndIndependent) {
  Random a(1), b(1);
  Random fa = a.Fork(), fb = b.Fork();
  std::vector<uint64_t> fork_seq = Draw(fa, 50);
  EXPECT_EQ(fork_seq, Draw(fb, 50));
  // The fork's stream differs from the parent's continuation and from a second fork.
  std::vector<uint64_t> parent_seq = Draw(a, 50);
  EXPECT_NE(fork_seq, parent_seq);
  Random second = b.Fork();
  std::vector<uint64_t> second_seq = Draw(second, 50);
  EXPECT_NE(fork_seq, second_seq);
  std::set<uint64_t> all(fork_seq.begin(), fork_seq.end());
  all.insert(parent_seq.begin(), parent_seq.end());
  all.insert(second_seq.begin(), second_seq.end());
  EXPECT_EQ(all.size(), 150u);
}

TEST(RandomTest, DrawingFromAForkDoesNotDisturbTheParent) {
  Random a(5), b(5);
  Random fork = a.Fork();
  (void)b.Fork();
  Draw(fork, 1000);
  EXPECT_EQ(Draw(a, 20), Draw(b, 20));
}

TEST(RandomTest, UniformStaysInBoundsAndCoversTheRange) {
  Random r(3);
  std::vector<int> hits(10, 0);
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = r.Uniform(10);
    ASSERT_LT(v, 10u);
    ++hits[v];
  }
  for (int h : hits) EXPECT_GT(h, 800);
  for (int i = 0; i < 1000; ++i) {
    int64_t v = r.Range(-3, 3);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 3);
  }
  for (int i = 0; i < 1000; ++i) {
    double d = r.NextDouble();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
  }
}

}  // namespace
}  // namespace omnigraph

// Random: seeded, forkable pseudo-random numbers (xoshiro256**, seeded through splitmix64).
//
// The same seed always yields the same sequence, and Fork() derives an independent generator whose
// sequence depends only on the parent's state, so a simulation can give each actor its own stream
// and replay a run from one seed. Thread-safe (an internal mutex); determinism across threads
// needs one generator per thread, made with Fork().
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>

namespace omnigraph {

class Random {
 public:
  explicit Random(uint64_t seed);
  // A generator seeded from the operating system's entropy (production use).
  static Random FromEntropy();

  Random(const Random& other);
  Random& operator=(const Random& other);

  uint64_t seed() const { return seed_; }

  uint64_t Next64();
  // Uniform in [0, bound); bound must be > 0.
  uint64_t Uniform(uint64_t bound);
  // Uniform in [lo, hi] inclusive.
  int64_t Range(int64_t lo, int64_t hi);
  // Uniform in [0, 1).
  double NextDouble();
  // True with probability p.
  bool Bernoulli(double p);
  void Fill(std::span<uint8_t> out);
  // An independent generator derived from this one's next output.
  Random Fork();

 private:
  uint64_t NextLocked();

  std::mutex mu_;
  uint64_t seed_;
  uint64_t s_[4];
};

}  // namespace omnigraph

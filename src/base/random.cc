#include "base/random.h"

#include <sys/random.h>

#include <random>

#include "base/status.h"

namespace omnigraph {

namespace {
uint64_t SplitMix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Random::Random(uint64_t seed) : seed_(seed) {
  uint64_t x = seed;
  for (uint64_t& s : s_) s = SplitMix64(x);
}

Random Random::FromEntropy() {
  // One getrandom(2) call: std::random_device opened, read and closed /dev/urandom, about 30 µs
  // of every fresh process's open (docs/benchmarks.md "The 10× fresh 1-hop after decisions 243
  // and 244").
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof(seed), 0) == static_cast<ssize_t>(sizeof(seed))) return Random(seed);
  std::random_device device;
  seed = (static_cast<uint64_t>(device()) << 32) ^ device();
  return Random(seed);
}

Random::Random(const Random& other) {
  std::lock_guard lock(const_cast<std::mutex&>(other.mu_));
  seed_ = other.seed_;
  for (int i = 0; i < 4; ++i) s_[i] = other.s_[i];
}

Random& Random::operator=(const Random& other) {
  if (this == &other) return *this;
  std::scoped_lock lock(mu_, const_cast<std::mutex&>(other.mu_));
  seed_ = other.seed_;
  for (int i = 0; i < 4; ++i) s_[i] = other.s_[i];
  return *this;
}

uint64_t Random::NextLocked() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Random::Next64() {
  std::lock_guard lock(mu_);
  return NextLocked();
}

uint64_t Random::Uniform(uint64_t bound) {
  OMNIGRAPH_CHECK(bound > 0);
  // Rejection sampling keeps the distribution exactly uniform.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  std::lock_guard lock(mu_);
  while (true) {
    uint64_t v = NextLocked();
    if (v < limit) return v % bound;
  }
}

int64_t Random::Range(int64_t lo, int64_t hi) {
  OMNIGRAPH_CHECK(lo <= hi);
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(Next64());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + Uniform(span + 1));
}

double Random::NextDouble() { return static_cast<double>(Next64() >> 11) * 0x1.0p-53; }

bool Random::Bernoulli(double p) { return NextDouble() < p; }

void Random::Fill(std::span<uint8_t> out) {
  std::lock_guard lock(mu_);
  size_t i = 0;
  while (i < out.size()) {
    uint64_t v = NextLocked();
    for (int b = 0; b < 8 && i < out.size(); ++b, ++i) out[i] = static_cast<uint8_t>(v >> (8 * b));
  }
}

Random Random::Fork() {
  uint64_t a = Next64();
  uint64_t mixed = a ^ 0x5851f42d4c957f2dULL;
  return Random(SplitMix64(mixed));
}

}  // namespace omnigraph

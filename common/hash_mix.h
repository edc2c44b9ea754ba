// MixBits: a bijective 64-bit finalizer (the one that ends MurmurHash3,
// fmix64): every input bit reaches every output bit. For turning values
// that are hashes already, but correlated with another use of them (a
// fingerprint that also picks a table slot or a filter block), into
// independent slot indexes and probe bits. One definition for the frontier's
// tables and the benchmarks' synthetic data. Pure; thread-safe.
#pragma once

#include <cstdint>

namespace zcrawl {

constexpr uint64_t MixBits(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace zcrawl

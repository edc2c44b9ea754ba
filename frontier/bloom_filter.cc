#include "frontier/bloom_filter.h"

#include <bit>

namespace zcrawl::frontier {
namespace {

// Mixes the fingerprint again so block choice and bit choice are independent.
uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace

BloomFilter::BloomFilter(uint64_t expected_entries) {
  // 10 bits per entry, 512 bits per block, rounded up to a power of two.
  const uint64_t wanted_blocks = (expected_entries * 10 + 511) / 512;
  const uint64_t blocks = std::bit_ceil(wanted_blocks < 1 ? 1 : wanted_blocks);
  blocks_.assign(blocks, Block{});
  block_mask_ = blocks - 1;
}

const BloomFilter::Block& BloomFilter::BlockFor(uint64_t fingerprint) const {
  return blocks_[fingerprint & block_mask_];
}

void BloomFilter::Add(uint64_t fingerprint) {
  auto& block = const_cast<Block&>(BlockFor(fingerprint));
  uint64_t bits = Mix(fingerprint);
  for (int i = 0; i < kProbes; ++i) {
    const unsigned bit = bits & 511;  // 9 bits choose one of 512
    block.words[bit >> 6] |= 1ULL << (bit & 63);
    bits = (bits >> 9) | (bits << 55);
  }
}

bool BloomFilter::MayContain(uint64_t fingerprint) const {
  const auto& block = BlockFor(fingerprint);
  uint64_t bits = Mix(fingerprint);
  for (int i = 0; i < kProbes; ++i) {
    const unsigned bit = bits & 511;
    if ((block.words[bit >> 6] & (1ULL << (bit & 63))) == 0) return false;
    bits = (bits >> 9) | (bits << 55);
  }
  return true;
}

}  // namespace zcrawl::frontier

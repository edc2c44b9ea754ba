#include "frontier/seen/bloom_filter.h"

#include <atomic>

#include "common/hash_mix.h"

namespace zcrawl::frontier {
namespace {

// A word of a block as a relaxed atomic (see the header: one writer, many
// readers). atomic_ref needs a mutable object even for loads.
std::atomic_ref<uint64_t> Word(const uint64_t& word) { return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(word)); }

// Where a fingerprint's probes fall in its block: the fingerprint mixed
// again, so that block choice and bit choice are independent.
uint64_t ProbeBits(uint64_t fingerprint) { return MixBits(fingerprint); }

// Most blocks: the block index comes from 32 fingerprint bits (2^32 blocks
// of 512 bits cover 200 billion entries at 10 bits each).
constexpr uint64_t kMaxBlocks = uint64_t{1} << 32;

}  // namespace

BloomFilter::BloomFilter(uint64_t expected_entries) {
  // 10 bits per entry, 512 bits per block.
  uint64_t blocks = (expected_entries * 10 + 511) / 512;
  if (blocks < 1) blocks = 1;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  blocks_.assign(blocks, Block{});
}

const BloomFilter::Block& BloomFilter::BlockFor(uint64_t fingerprint) const {
  // Fast range: the low 32 bits scaled onto [0, blocks).
  return blocks_[((fingerprint & 0xffffffffULL) * blocks_.size()) >> 32];
}

void BloomFilter::Add(uint64_t fingerprint) {
  auto& block = const_cast<Block&>(BlockFor(fingerprint));
  uint64_t bits = ProbeBits(fingerprint);
  for (int i = 0; i < kProbes; ++i) {
    const unsigned bit = bits & 511;  // 9 bits choose one of 512
    auto word = Word(block.words[bit >> 6]);
    word.store(word.load(std::memory_order_relaxed) | (1ULL << (bit & 63)), std::memory_order_relaxed);
    bits = (bits >> 9) | (bits << 55);
  }
}

bool BloomFilter::MayContain(uint64_t fingerprint) const {
  const auto& block = BlockFor(fingerprint);
  uint64_t bits = ProbeBits(fingerprint);
  for (int i = 0; i < kProbes; ++i) {
    const unsigned bit = bits & 511;
    if ((Word(block.words[bit >> 6]).load(std::memory_order_relaxed) & (1ULL << (bit & 63))) == 0) return false;
    bits = (bits >> 9) | (bits << 55);
  }
  return true;
}

}  // namespace zcrawl::frontier

// BloomFilter over 64-bit fingerprints: answers "definitely new" or "maybe
// seen". It sits in front of the exact fingerprint set so that a lookup of a
// new URL usually costs one cache-friendly probe sequence and never touches
// the big table; "maybe seen" is always confirmed by the exact set, so a
// false positive never skips a URL.
//
// Sizing: m = 10 bits per expected entry (1.25 bytes; the block count is
// not rounded up to a power of two, a block is picked by fast range on the
// low 32 bits) and k = 7 probes give a false positive rate of about 1% at
// the expected count; the probes are taken from one 64-byte block (a
// "blocked" Bloom filter) so a lookup is one cache miss. Past the expected
// count the rate rises gracefully (it only costs exact-set lookups).
//
// One writer, many readers: Add from one thread at a time, MayContain from
// any thread meanwhile (the link threads probe the broker's filter). Words
// are read and written as relaxed atomics (plain loads and stores on
// x86-64), so a reader sees each word whole, old or new: a fingerprint
// being added may read as absent, which a reader must only take as "not
// added before the last synchronisation with the writer".
#pragma once

#include <cstdint>
#include <vector>

namespace zcrawl::frontier {

class BloomFilter {
 public:
  explicit BloomFilter(uint64_t expected_entries);

  void Add(uint64_t fingerprint);
  bool MayContain(uint64_t fingerprint) const;
  uint64_t memory_bytes() const { return blocks_.size() * sizeof(Block); }

 private:
  struct alignas(64) Block {
    uint64_t words[8];
  };
  static constexpr int kProbes = 7;

  const Block& BlockFor(uint64_t fingerprint) const;

  std::vector<Block> blocks_;
};

}  // namespace zcrawl::frontier

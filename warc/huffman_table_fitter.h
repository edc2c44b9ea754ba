// HuffmanTableFitter: Huffman tables for igzip's one-pass level 0, fitted
// to the records one compressor has been compressing.
//
// igzip's level 0 is its fastest deflate (one pass, no per-block tables),
// but with its built-in generic tables it compresses HTML to 0.330 of its
// size where level 1, which builds tables for every block, reaches 0.287.
// With tables fitted to the data level 0 reaches 0.289 and stays 19%
// faster than level 1 (benchmark site, one core; Python's HTML docs: 0.232
// against 0.225, 12% faster). Every member still carries its own tables
// in its block header, so each is an ordinary gzip member any reader
// inflates; fitting changes the size, never the format.
//
// The fit follows the crawl: every record is sampled until 256 KiB were
// seen, then one in eight, and the tables are rebuilt after each further
// MiB sampled, with older counts halved so a crawl that moves from one
// kind of content to another is followed. Sampling costs a histogram pass
// (~850 MB/s) over an eighth of the bytes; a rebuild ~20 us. Every symbol
// gets a code, so data unlike the sample still compresses (igzip falls
// back to stored blocks when it does not).
//
// Thread-safety: none; one per compressor (per encoding thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

struct isal_huff_histogram;
struct isal_hufftables;

namespace zcrawl {

class HuffmanTableFitter {
 public:
  HuffmanTableFitter();
  ~HuffmanTableFitter();
  HuffmanTableFitter(const HuffmanTableFitter&) = delete;
  HuffmanTableFitter& operator=(const HuffmanTableFitter&) = delete;

  // Offers a record that was just compressed; it may join the sample.
  void Observe(std::string_view record);
  // Tables fitted so far, or null until the first 256 KiB were seen.
  const isal_hufftables* tables() const;
  // Times the tables were (re)built; for tests.
  uint64_t fits() const { return fits_; }

  static constexpr uint64_t kFirstFitBytes = 256 * 1024;
  static constexpr uint64_t kRefitBytes = 1024 * 1024;
  static constexpr uint64_t kSampleEveryRecords = 8;

 private:
  void Fit();

  std::unique_ptr<isal_huff_histogram> histogram_;
  std::unique_ptr<isal_hufftables> tables_;
  uint64_t records_ = 0;
  uint64_t sampled_since_fit_ = 0;  // bytes
  uint64_t fits_ = 0;
};

}  // namespace zcrawl

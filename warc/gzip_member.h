// GzipMemberCompressor: compresses one buffer into one complete gzip member
// (RFC 1952), or into a raw DEFLATE stream that AppendGzipMemberAround later
// makes a member with a prefix in front. A WARC file is a run of such
// members, one per record, which is what lets readers seek to any record by
// its offset; `gzip -d` reads the whole file as one. The writer compresses
// records with it; fetchers compress record blocks with it for the writer
// (compressed_warc_blocks.h).
//
// Two one-shot compressors, chosen by level, because neither is best at
// everything (measured on the benchmark site's 18 KB HTML pages, one core):
//   - level 1, the WARC default: ISA-L's igzip (Intel's Intelligent Storage
//     Acceleration Library, Debian libisal-dev). Its level 1 does 470 MB/s
//     at ratio 0.287 against libdeflate's 300 MB/s at 0.279 (and zlib's
//     ~100 MB/s). Deflate is two thirds of the WARC sink's CPU, so this is
//     its biggest single lever. Once 256 KiB of records were seen, records
//     of 4 KB and more get igzip's one-pass level 0 with Huffman tables
//     fitted to the records so far (huffman_table_fitter.h): 560 MB/s at
//     0.289. Records under 4 KB (requests, outlink lists) get level 0 with
//     igzip's preset tables: building tables costs more than it saves there.
//   - levels 2-12: libdeflate, whose higher levels compress better than
//     igzip's (zlib's scale 1-9 plus its slower 10-12);
//   - level 0, stored blocks: written here, from the caller's pieces
//     without joining them, the CRC by ISA-L.
// Should igzip ever report that the member did not fit the worst-case
// buffer (it writes stored blocks for incompressible input, so it should
// not), that member is made by libdeflate instead: the output is gzip either
// way.
//
// Thread-safety: none; owns compressor state, use one per thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "warc/huffman_table_fitter.h"

struct libdeflate_compressor;

namespace zcrawl {

// Highest level: libdeflate's slowest, best compression.
inline constexpr int kMaxGzipMemberLevel = 12;
// The level compressed by igzip.
inline constexpr int kIgzipGzipLevel = 1;

class GzipMemberCompressor {
 public:
  // `level`: 0 (stored blocks) to kMaxGzipMemberLevel, clamped into that
  // range.
  explicit GzipMemberCompressor(int level);
  ~GzipMemberCompressor();
  GzipMemberCompressor(const GzipMemberCompressor&) = delete;
  GzipMemberCompressor& operator=(const GzipMemberCompressor&) = delete;

  // Appends `data` as one gzip member to `out`.
  Status AppendMember(std::string_view data, std::string& out);
  // Appends the concatenation of `pieces` as one gzip member, without
  // concatenating them first at level 0 (stored blocks are written straight
  // from the pieces); other levels join them in a reused buffer.
  Status AppendMember(std::initializer_list<std::string_view> pieces, std::string& out);
  // Appends the concatenation of `pieces` as one raw DEFLATE stream (RFC
  // 1951: no gzip header or trailer, its last block final) and returns
  // gzip's CRC-32 of the input, which the member's trailer will need
  // (AppendGzipMemberAround). The same compressors as for members.
  Result<uint32_t> AppendRawDeflate(std::initializer_list<std::string_view> pieces, std::string& out);

 private:
  // Level 0: gzip header, stored blocks of at most 65,535 bytes, CRC-32
  // (ISA-L's, carry-less multiply) and size.
  void AppendStoredMember(std::initializer_list<std::string_view> pieces, std::string& out);
  // `raw`: a bare DEFLATE stream instead of a gzip member. false: igzip
  // could not take it (overflow, too large); `out` unchanged.
  bool AppendWithIgzip(std::string_view data, bool raw, std::string& out);
  Status AppendWithLibdeflate(std::string_view data, bool raw, std::string& out);

  int level_;
  libdeflate_compressor* libdeflate_ = nullptr;  // created on first use
  std::vector<uint8_t> igzip_level_buffer_;      // igzip's hash and token space
  HuffmanTableFitter fitter_;                    // level 1 only
  std::string joined_;                           // scratch: pieces joined
};

// Appends one gzip member whose contents are `prefix` followed by what
// `deflate` inflates to: the gzip header, `prefix` as stored blocks not
// marked final, `deflate` as it is (a raw DEFLATE stream whose last block is
// final, inflating to `deflate_size` bytes with CRC-32 `deflate_crc`), and a
// trailer with the CRC-32 of the whole, combined from the two (zlib's
// crc32_combine) without reading `deflate`'s contents again. A DEFLATE
// stream is a run of blocks, and a stored block ends on a byte boundary, so
// the result is one ordinary member. This is how the writer wraps its WARC
// header around a record block a fetcher compressed: the per-byte work
// (deflate, CRC) was done on the fetcher.
void AppendGzipMemberAround(std::string_view prefix, std::string_view deflate, uint32_t deflate_crc,
                            uint64_t deflate_size, std::string& out);

}  // namespace zcrawl

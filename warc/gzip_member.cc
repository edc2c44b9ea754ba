#include "warc/gzip_member.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <limits>

namespace zcrawl {
namespace {

// igzip's stateless worst case: the input in stored blocks (5 header bytes
// per 64 KiB), its block header, and gzip's 10-byte header and 8-byte
// trailer, with room to spare.
size_t IgzipBound(size_t n) { return n + 5 * (n / 65535 + 1) + ISAL_DEF_MAX_HDR_SIZE + 64; }

// Below this size igzip's level 0 with its preset Huffman tables is used:
// building tables for a 600-byte request record costs more than it saves
// (measured in the WARC sink: +14% pages/s for +6% bytes), and such records
// (requests, outlink lists) are not like the pages the fitted tables follow.
constexpr size_t kIgzipSmallRecordBytes = 4096;

// RFC 1952 header: magic, deflate, no flags, no mtime, no extra flags, OS
// unknown.
constexpr unsigned char kGzipHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
// A stored deflate block holds at most this many bytes (LEN is 16 bits).
constexpr size_t kStoredBlockMax = 65535;

void AppendLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// Appends the pieces' concatenation as stored blocks of at most
// kStoredBlockMax bytes, the last one marked final when `final`; returns
// the CRC-32 of what they hold. Empty and not final: nothing is written.
// `out` must be at a byte boundary of the DEFLATE stream, which it always
// is here (a stream's start, or after another stored block).
uint32_t AppendStoredBlocks(std::initializer_list<std::string_view> pieces, bool final,
                            std::string& out) {
  size_t total = 0;
  for (std::string_view piece : pieces) total += piece.size();
  const size_t blocks = (total + kStoredBlockMax - 1) / kStoredBlockMax + (total == 0 && final ? 1 : 0);
  out.reserve(out.size() + 5 * blocks + total + 8);
  uint32_t crc = 0;
  auto piece = pieces.begin();
  size_t used = 0;  // bytes of *piece already copied
  size_t left = total;
  for (size_t block = 0; block < blocks; ++block) {
    const size_t n = std::min(left, kStoredBlockMax);
    left -= n;
    // BFINAL, BTYPE 00; we are byte-aligned, so the three header bits fill
    // a byte. Then LEN and its complement.
    AppendLittleEndian(out, final && left == 0 ? 1 : 0, 1);
    AppendLittleEndian(out, n, 2);
    AppendLittleEndian(out, ~n & 0xFFFF, 2);
    for (size_t want = n; want > 0;) {
      while (used == piece->size()) {
        ++piece;
        used = 0;
      }
      const size_t take = std::min(want, piece->size() - used);
      const char* from = piece->data() + used;
      crc = crc32_gzip_refl(crc, reinterpret_cast<const unsigned char*>(from), take);
      out.append(from, take);
      used += take;
      want -= take;
    }
  }
  return crc;
}

void AppendGzipTrailer(uint32_t crc, uint64_t size, std::string& out) {
  AppendLittleEndian(out, crc, 4);
  AppendLittleEndian(out, size & 0xFFFFFFFFu, 4);  // ISIZE: the size mod 2^32
}

}  // namespace

GzipMemberCompressor::GzipMemberCompressor(int level)
    : level_(std::clamp(level, 0, kMaxGzipMemberLevel)) {}

GzipMemberCompressor::~GzipMemberCompressor() { libdeflate_free_compressor(libdeflate_); }

Status GzipMemberCompressor::AppendMember(std::string_view data, std::string& out) {
  if (level_ == 0) {
    AppendStoredMember({data}, out);
    return Status::Ok();
  }
  if (level_ == kIgzipGzipLevel && AppendWithIgzip(data, /*raw=*/false, out)) return Status::Ok();
  return AppendWithLibdeflate(data, /*raw=*/false, out);
}

Status GzipMemberCompressor::AppendMember(std::initializer_list<std::string_view> pieces,
                                          std::string& out) {
  if (level_ == 0) {
    AppendStoredMember(pieces, out);
    return Status::Ok();
  }
  joined_.clear();
  for (std::string_view piece : pieces) joined_ += piece;
  return AppendMember(std::string_view(joined_), out);
}

void GzipMemberCompressor::AppendStoredMember(std::initializer_list<std::string_view> pieces,
                                              std::string& out) {
  size_t total = 0;
  for (std::string_view piece : pieces) total += piece.size();
  out.reserve(out.size() + sizeof(kGzipHeader) + 5 * (total / kStoredBlockMax + 1) + total + 8);
  out.append(reinterpret_cast<const char*>(kGzipHeader), sizeof(kGzipHeader));
  const uint32_t crc = AppendStoredBlocks(pieces, /*final=*/true, out);
  AppendGzipTrailer(crc, total, out);
}

Result<uint32_t> GzipMemberCompressor::AppendRawDeflate(std::initializer_list<std::string_view> pieces,
                                                        std::string& out) {
  if (level_ == 0) return AppendStoredBlocks(pieces, /*final=*/true, out);
  joined_.clear();
  for (std::string_view piece : pieces) joined_ += piece;
  const uint32_t crc =
      crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(joined_.data()), joined_.size());
  if (level_ == kIgzipGzipLevel && AppendWithIgzip(joined_, /*raw=*/true, out)) return crc;
  Status s = AppendWithLibdeflate(joined_, /*raw=*/true, out);
  if (!s.ok()) return s;
  return crc;
}

bool GzipMemberCompressor::AppendWithIgzip(std::string_view data, bool raw, std::string& out) {
  // avail_in and avail_out are 32-bit.
  if (data.size() > std::numeric_limits<uint32_t>::max() / 2) return false;
  if (igzip_level_buffer_.empty()) igzip_level_buffer_.resize(ISAL_DEF_LVL1_SMALL);
  isal_zstream stream;
  isal_deflate_stateless_init(&stream);
  const bool small = data.size() < kIgzipSmallRecordBytes;
  const isal_hufftables* fitted = small ? nullptr : fitter_.tables();
  // Level 0 with tables fitted to earlier records (huffman_table_fitter.h);
  // level 1 until there are some.
  stream.level = small || fitted ? 0 : kIgzipGzipLevel;
  if (fitted) stream.hufftables = const_cast<isal_hufftables*>(fitted);
  stream.level_buf = igzip_level_buffer_.data();
  stream.level_buf_size = static_cast<uint32_t>(igzip_level_buffer_.size());
  stream.gzip_flag = raw ? IGZIP_DEFLATE : IGZIP_GZIP;
  stream.end_of_stream = 1;
  stream.flush = NO_FLUSH;
  // isal takes non-const input pointers but does not write through them.
  stream.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uint32_t>(data.size());
  const size_t start = out.size();
  out.resize(start + IgzipBound(data.size()));
  stream.next_out = reinterpret_cast<uint8_t*>(out.data() + start);
  stream.avail_out = static_cast<uint32_t>(out.size() - start);
  if (isal_deflate_stateless(&stream) != COMP_OK) {
    out.resize(start);
    return false;
  }
  out.resize(start + stream.total_out);
  if (!small) fitter_.Observe(data);
  return true;
}

Status GzipMemberCompressor::AppendWithLibdeflate(std::string_view data, bool raw, std::string& out) {
  if (libdeflate_ == nullptr) {
    libdeflate_ = libdeflate_alloc_compressor(level_);
    if (libdeflate_ == nullptr) return InternalError("libdeflate_alloc_compressor failed");
  }
  // One shot into the worst-case size, then cut to what was used.
  const size_t start = out.size();
  out.resize(start + (raw ? libdeflate_deflate_compress_bound(libdeflate_, data.size())
                          : libdeflate_gzip_compress_bound(libdeflate_, data.size())));
  char* to = out.data() + start;
  const size_t room = out.size() - start;
  const size_t n = raw ? libdeflate_deflate_compress(libdeflate_, data.data(), data.size(), to, room)
                       : libdeflate_gzip_compress(libdeflate_, data.data(), data.size(), to, room);
  if (n == 0) {
    out.resize(start);
    return InternalError("libdeflate could not compress");
  }
  out.resize(start + n);
  return Status::Ok();
}

void AppendGzipMemberAround(std::string_view prefix, std::string_view deflate, uint32_t deflate_crc,
                            uint64_t deflate_size, std::string& out) {
  out.reserve(out.size() + sizeof(kGzipHeader) + prefix.size() + 5 * (prefix.size() / kStoredBlockMax + 1) +
              deflate.size() + 8);
  out.append(reinterpret_cast<const char*>(kGzipHeader), sizeof(kGzipHeader));
  const uint32_t prefix_crc = AppendStoredBlocks({prefix}, /*final=*/false, out);
  out.append(deflate);
  const auto crc = static_cast<uint32_t>(
      crc32_combine(prefix_crc, deflate_crc, static_cast<z_off_t>(deflate_size)));
  AppendGzipTrailer(crc, prefix.size() + deflate_size, out);
}

}  // namespace zcrawl

// GzipFile: a gzip file (RFC 1952) of some bytes, made with zlib the way the
// gzip tool makes sitemap.xml.gz, for tests that serve or read such files.
// Header-only test support; throws if zlib fails.
#pragma once

#include <zlib.h>

#include <stdexcept>
#include <string>

namespace zcrawl::testing {

// zlib's deflate of `data` in the wrapper `window_bits` selects (zlib's
// convention: 15 zlib, -15 raw DEFLATE, 15 + 16 gzip).
inline std::string ZlibDeflate(const std::string& data, int level, int window_bits) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, window_bits, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  return out;
}

// windowBits 15 + 16: a 32 KiB window and the gzip wrapper.
inline std::string GzipFile(const std::string& data, int level = Z_BEST_COMPRESSION) {
  return ZlibDeflate(data, level, 15 + 16);
}

}  // namespace zcrawl::testing

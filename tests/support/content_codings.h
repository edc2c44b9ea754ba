// Content codings made the way servers make them, for tests of the
// fetcher's decoding: zlib-wrapped and raw DEFLATE (zlib), br (the brotli
// encoder), zstd, and gzip (gzip_file.h). Header-only; throws if a library
// fails.
#pragma once

#include <brotli/encode.h>
#include <zlib.h>
#include <zstd.h>

#include <stdexcept>
#include <string>

#include "tests/support/gzip_file.h"

namespace zcrawl::testing {

// DEFLATE of `data`: zlib-wrapped (RFC 1950), as "deflate" is meant, or
// raw (RFC 1951), as some servers send it.
inline std::string DeflateCoded(const std::string& data, bool zlib_wrapped) {
  return ZlibDeflate(data, 6, zlib_wrapped ? 15 : -15);
}

inline std::string BrotliCoded(const std::string& data) {
  size_t size = BrotliEncoderMaxCompressedSize(data.size());
  std::string out(size ? size : data.size() + 1024, '\0');
  size = out.size();
  if (!BrotliEncoderCompress(5, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, data.size(),
                             reinterpret_cast<const uint8_t*>(data.data()), &size,
                             reinterpret_cast<uint8_t*>(out.data()))) {
    throw std::runtime_error("brotli encoding failed");
  }
  out.resize(size);
  return out;
}

// zstd of `data`. window_log > 0: a streamed frame that declares that
// window (2^window_log bytes) instead of one sized to the data.
inline std::string ZstdCoded(const std::string& data, int window_log = 0) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  if (!context) throw std::runtime_error("ZSTD_createCCtx failed");
  ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 3);
  if (window_log > 0) ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, window_log);
  std::string out(ZSTD_compressBound(data.size()), '\0');
  ZSTD_inBuffer input{data.data(), data.size(), 0};
  ZSTD_outBuffer output{out.data(), out.size(), 0};
  // Streamed (input first, then the end), the frame does not carry the
  // content size, so the window it declares is the one set.
  size_t left = 0;
  while (input.pos < input.size && !ZSTD_isError(left)) {
    left = ZSTD_compressStream2(context, &output, &input, ZSTD_e_continue);
  }
  do {
    if (ZSTD_isError(left)) break;
    left = ZSTD_compressStream2(context, &output, &input, ZSTD_e_end);
  } while (!ZSTD_isError(left) && left != 0);
  ZSTD_freeCCtx(context);
  if (ZSTD_isError(left)) throw std::runtime_error(ZSTD_getErrorName(left));
  out.resize(output.pos);
  return out;
}

}  // namespace zcrawl::testing

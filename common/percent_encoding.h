// Percent-encoding's two primitives, shared by the URL parser and the
// robots.txt matcher (each decides which bytes to encode; see url.cc's
// encode sets and robots_rules.cc's normalisation): "%XX" for one byte, with
// upper-case hex as the URL Standard and RFC 3986 prefer, and decoding of
// every valid "%XX" (an invalid one stays as it is). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/ascii.h"

namespace zcrawl {

inline void AppendPercentEncodedByte(std::string& out, uint8_t b) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  const char encoded[3] = {'%', kUpperHex[b >> 4], kUpperHex[b & 0xF]};
  out.append(encoded, 3);
}

// `in` with each "%XX" (two hex digits) replaced by its byte.
inline std::string PercentDecode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    int hi = 0;
    int lo = 0;
    if (in[i] == '%' && i + 2 < in.size() && (hi = HexDigitValue(in[i + 1])) >= 0 &&
        (lo = HexDigitValue(in[i + 2])) >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += in[i];
    }
  }
  return out;
}

}  // namespace zcrawl

// Base64DecodeForTest: a decoder written apart from common/encoding's
// encoder, for round-trip checks of what zcrawl encodes (RFC 4648 alphabet,
// padding ends the input). A character outside the alphabet is a test
// failure.
#pragma once

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace zcrawl::testing {

inline std::string Base64DecodeForTest(const std::string& s) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    const size_t v = kAlphabet.find(c);
    EXPECT_NE(v, std::string::npos) << "not base64: " << c;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace zcrawl::testing

// Sha1: the raw digest the fetcher puts in Page.body_sha1. Checked against
// the FIPS 180 example vectors, and across OpenSSL's block boundary.
#include "common/sha1.h"

#include <gtest/gtest.h>

#include <string>

namespace zcrawl {
namespace {

std::string Hex(const std::string& raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

TEST(Sha1Test, MatchesTheFipsExampleVectors) {
  EXPECT_EQ(Hex(Sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Hex(Sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Hex(Sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Hex(Sha1(std::string(1000000, 'a'))), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(Sha1Test, IsTwentyBytesAndBinarySafe) {
  const std::string with_nul("a\0b", 3);
  EXPECT_EQ(Sha1(with_nul).size(), kSha1Bytes);
  EXPECT_NE(Sha1(with_nul), Sha1("a"));
}

}  // namespace
}  // namespace zcrawl

#include "common/encoding.h"

#include <gtest/gtest.h>

#include <ctime>
#include <random>
#include <string>

#include "tests/support/base64_decode.h"

namespace zcrawl {
namespace {

using zcrawl::testing::Base64DecodeForTest;

TEST(EncodingTest, Base64MatchesRfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
}

TEST(EncodingTest, Base64UsesPlusAndSlashForHighValues) {
  EXPECT_EQ(Base64Encode(std::string("\xfb\xff\xbf", 3)), "+/+/");
}

TEST(EncodingTest, Base64RoundTripsEveryByteValueAndLength) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t len = 0; len <= all.size(); ++len) {
    const std::string in = all.substr(all.size() - len);
    const std::string enc = Base64Encode(in);
    EXPECT_EQ(enc.size() % 4, 0u);
    EXPECT_EQ(Base64DecodeForTest(enc), in) << "len " << len;
  }
}

TEST(EncodingTest, Base32MatchesRfc4648Vectors) {
  EXPECT_EQ(Base32Encode(""), "");
  EXPECT_EQ(Base32Encode("f"), "MY======");
  EXPECT_EQ(Base32Encode("fo"), "MZXQ====");
  EXPECT_EQ(Base32Encode("foo"), "MZXW6===");
  EXPECT_EQ(Base32Encode("foob"), "MZXW6YQ=");
  EXPECT_EQ(Base32Encode("fooba"), "MZXW6YTB");
  EXPECT_EQ(Base32Encode("foobar"), "MZXW6YTBOI======");
}

TEST(EncodingTest, Base32OfTwentyBytesHasNoPadding) {
  // SHA-1 of the empty string, as WARC tools print it.
  const std::string sha1_empty(
      "\xda\x39\xa3\xee\x5e\x6b\x4b\x0d\x32\x55\xbf\xef\x95\x60\x18\x90\xaf\xd8\x07\x09", 20);
  EXPECT_EQ(Base32Encode(sha1_empty), "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
}

TEST(EncodingTest, Rfc3339FormatsKnownInstants) {
  EXPECT_EQ(FormatRfc3339Millis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339Millis(1700000000123), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(FormatRfc3339Millis(951782400000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339Millis(1796005077123), "2026-11-30T02:17:57.123Z");
}

TEST(EncodingTest, Rfc3339HandlesInstantsBeforeTheEpoch) {
  EXPECT_EQ(FormatRfc3339Millis(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatRfc3339Millis(-86'400'000), "1969-12-31T00:00:00.000Z");
}

TEST(EncodingTest, Rfc3339ClampsToFourDigitYears) {
  EXPECT_EQ(FormatRfc3339Millis(INT64_MAX), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatRfc3339Millis(INT64_MIN), "0000-01-01T00:00:00.000Z");
}

TEST(EncodingTest, Rfc3339AgreesWithGmtimeOnRandomInstants) {
  std::mt19937_64 rng(42);
  // 1900..2400: inside what glibc's gmtime_r handles with 64-bit time_t.
  std::uniform_int_distribution<int64_t> dist(-2'208'988'800'000, 13'569'465'600'000);
  for (int i = 0; i < 20000; ++i) {
    const int64_t ms = dist(rng);
    time_t secs = static_cast<time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    const int64_t frac = ms - static_cast<int64_t>(secs) * 1000;
    struct tm tm_utc {};
    ASSERT_NE(gmtime_r(&secs, &tm_utc), nullptr);
    char buf[64];
    snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm_utc.tm_year + 1900,
             tm_utc.tm_mon + 1, tm_utc.tm_mday, tm_utc.tm_hour, tm_utc.tm_min, tm_utc.tm_sec,
             static_cast<int>(frac));
    ASSERT_EQ(FormatRfc3339Millis(ms), buf) << "ms=" << ms;
  }
}

TEST(EncodingTest, Rfc3339ParsesBackWhatItFormats) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> dist(-62'135'596'800'000, 253'402'300'799'999);  // years 1-9999
  for (int i = 0; i < 20000; ++i) {
    const int64_t ms = dist(rng);
    ASSERT_EQ(ParseRfc3339Millis(FormatRfc3339Millis(ms)), ms) << FormatRfc3339Millis(ms);
  }
  EXPECT_EQ(ParseRfc3339Millis("1970-01-01T00:00:01Z"), 1000);
  EXPECT_EQ(ParseRfc3339Millis("2026-12-03T12:26:15.1234567Z"), 1796300775123);
  EXPECT_EQ(ParseRfc3339Millis("2026-12-03T12:26:15.5Z"), 1796300775500);
  for (const char* bad : {"", "2026-12-03", "2026-12-03T12:26:15", "2026-12-03T12:26:15.Z", "2026-13-03T12:26:15Z",
                          "2026-12-03 12:26:15Z", "2026-12-03T12:26:15Zx", "2026-12-03T24:00:00Z"}) {
    EXPECT_FALSE(ParseRfc3339Millis(bad).has_value()) << bad;
  }
}

TEST(EncodingTest, WarcDateKeepsMilliseconds) {
  EXPECT_EQ(FormatWarcDate(1700000000123), "2023-11-14T22:13:20.123Z");
}

}  // namespace
}  // namespace zcrawl

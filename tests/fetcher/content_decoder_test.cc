// ContentDecoder: every coding decodes to the bytes the server encoded,
// however the network splits them; corrupt or unknown codings are errors;
// the decoded size never passes the limit.
#include "fetcher/content_decoder.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/support/content_codings.h"

namespace zcrawl::fetcher {
namespace {

using ::zcrawl::testing::BrotliCoded;
using ::zcrawl::testing::DeflateCoded;
using ::zcrawl::testing::GzipFile;
using ::zcrawl::testing::ZstdCoded;

// HTML-like text with enough variety that every coder keeps back-references
// across its window: ~300 KB, past igzip's 32 KiB history and one chunk.
std::string PageText() {
  std::mt19937 random(7);
  const std::vector<std::string> words = {"<p>", "crawler", "frontier", "</a>", "politeness", "<a href='/",
                                          "fetcher", "writer", "\n", "lease", "robots.txt", "queue"};
  std::string text;
  while (text.size() < 300 * 1024) {
    text += words[random() % words.size()];
    text += std::to_string(random() % 1000);
  }
  return text;
}

// Decodes `coded` fed in pieces of `piece` bytes; *out has what came out.
ContentDecoder::Result DecodeInPieces(ContentDecoder& decoder, const std::string& coded, size_t piece,
                                      std::string* out, size_t limit = 64u << 20) {
  for (size_t at = 0; at < coded.size(); at += piece) {
    const ContentDecoder::Result result = decoder.Decode(std::string_view(coded).substr(at, piece), out, limit);
    if (result != ContentDecoder::Result::kOk) return result;
  }
  return ContentDecoder::Result::kOk;
}

std::unique_ptr<ContentDecoder> For(std::string_view codings) {
  std::string error;
  std::unique_ptr<ContentDecoder> decoder = ContentDecoder::ForCodings(codings, &error);
  EXPECT_TRUE(decoder) << codings << ": " << error;
  return decoder;
}

struct Coding {
  std::string name;
  std::string (*encode)(const std::string&);
};

class EveryCodingTest : public ::testing::TestWithParam<Coding> {};

TEST_P(EveryCodingTest, DecodesWhateverTheNetworkSplits) {
  const std::string text = PageText();
  const std::string coded = GetParam().encode(text);
  ASSERT_LT(coded.size(), text.size() / 2) << "the coding compressed";
  for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}, size_t{65536}, coded.size()}) {
    auto decoder = For(GetParam().name);
    ASSERT_FALSE(decoder->identity());
    std::string out;
    ASSERT_EQ(DecodeInPieces(*decoder, coded, piece, &out), ContentDecoder::Result::kOk)
        << "piece " << piece << ": " << decoder->error();
    EXPECT_EQ(out, text) << "piece " << piece;
  }
}

TEST_P(EveryCodingTest, StopsAtTheLimitWithTheBodysFirstBytes) {
  const std::string huge(16u << 20, 'a');  // 16 MiB that code into a few KB
  const std::string coded = GetParam().encode(huge);
  ASSERT_LT(coded.size(), 1u << 20);
  auto decoder = For(GetParam().name);
  std::string out;
  const size_t limit = 100'000;
  EXPECT_EQ(DecodeInPieces(*decoder, coded, 1024, &out, limit), ContentDecoder::Result::kFull);
  EXPECT_EQ(out, huge.substr(0, limit));
}

TEST_P(EveryCodingTest, CorruptDataIsAnErrorNotAWrongBody) {
  const std::string text = PageText();
  std::string coded = GetParam().encode(text);
  // Damage the middle of the stream (the gzip and zlib trailers' checksums
  // catch what decodes to wrong bytes).
  for (size_t i = coded.size() / 2; i < coded.size() / 2 + 16; ++i) coded[i] = static_cast<char>(coded[i] ^ 0x5a);
  auto decoder = For(GetParam().name);
  std::string out;
  EXPECT_EQ(DecodeInPieces(*decoder, coded, 4096, &out), ContentDecoder::Result::kError);
  EXPECT_FALSE(decoder->error().empty());
}

std::string Gzip(const std::string& data) { return GzipFile(data, 6); }
std::string ZlibDeflate(const std::string& data) { return DeflateCoded(data, true); }
std::string Brotli(const std::string& data) { return BrotliCoded(data); }
std::string Zstd(const std::string& data) { return ZstdCoded(data); }

INSTANTIATE_TEST_SUITE_P(Codings, EveryCodingTest,
                         ::testing::Values(Coding{"gzip", Gzip}, Coding{"x-gzip", Gzip}, Coding{"deflate", ZlibDeflate},
                                           Coding{"br", Brotli}, Coding{"zstd", Zstd}),
                         [](const auto& info) { return info.param.name == "x-gzip" ? "xgzip" : info.param.name; });

TEST(ContentDecoderTest, RawDeflateFromServersThatSendItIsDecodedToo) {
  const std::string text = PageText();
  const std::string raw = DeflateCoded(text, false);
  for (size_t piece : {size_t{1}, size_t{3}, raw.size()}) {
    auto decoder = For("deflate");
    std::string out;
    ASSERT_EQ(DecodeInPieces(*decoder, raw, piece, &out), ContentDecoder::Result::kOk) << decoder->error();
    EXPECT_EQ(out, text) << "piece " << piece;
  }
}

TEST(ContentDecoderTest, GzipMembersAreAllDecodedAndBytesAfterTheLastIgnored) {
  const std::string both = GzipFile("first member, ") + GzipFile("second member");
  for (const std::string& junk : {std::string("\n\n trailing junk"), std::string("\x1f\x8b not a member"),
                                  std::string("\x1f")}) {
    auto decoder = For("gzip");
    std::string out;
    ASSERT_EQ(DecodeInPieces(*decoder, both + junk, 5, &out), ContentDecoder::Result::kOk) << decoder->error();
    EXPECT_EQ(out, "first member, second member");
  }
}

// ISA-L hands back what it read past a member's end by moving its input
// pointer back, into an earlier piece when the pieces are small: every
// split point is tried (the fuzzer found the pointer arithmetic wrong).
TEST(ContentDecoderTest, EverySplitAfterAMembersEndIsSafe) {
  const std::string first = PageText().substr(0, 3000);
  const std::string both = GzipFile(first, 6) + GzipFile("second member", 6);
  for (size_t piece = 1; piece <= 64; ++piece) {
    for (const std::string& after : {std::string("0123456789abcdef junk"), GzipFile("second member", 6)}) {
      auto decoder = For("gzip");
      std::string out;
      ASSERT_EQ(DecodeInPieces(*decoder, GzipFile(first, 6) + after, piece, &out), ContentDecoder::Result::kOk)
          << "piece " << piece << ": " << decoder->error();
      // The second member is decoded unless ISA-L's read-ahead of its
      // first bytes crossed a piece boundary (content_decoder.cc).
      EXPECT_TRUE(out == first || out == first + "second member") << "piece " << piece;
    }
  }
  auto whole = For("gzip");
  std::string out;
  ASSERT_EQ(DecodeInPieces(*whole, both, both.size(), &out), ContentDecoder::Result::kOk);
  EXPECT_EQ(out, first + "second member") << "in one piece, both members";
}

TEST(ContentDecoderTest, ACorruptMemberAfterAWholeOneEndsTheBodyThere) {
  std::string second = GzipFile(PageText(), 6);
  second[second.size() / 2] = static_cast<char>(second[second.size() / 2] ^ 0xff);
  auto decoder = For("gzip");
  std::string out;
  ASSERT_EQ(DecodeInPieces(*decoder, GzipFile("whole. ") + second, 4096, &out), ContentDecoder::Result::kOk)
      << decoder->error();
  EXPECT_EQ(out.substr(0, 7), "whole. ");
  EXPECT_LT(out.size(), 7 + PageText().size());
}

TEST(ContentDecoderTest, GzipHeaderWithEveryOptionalFieldIsReadHoweverItIsSplit) {
  const std::string text = "<title>named</title>";
  const std::string plain = GzipFile(text);
  // FLG: FHCRC | FEXTRA | FNAME | FCOMMENT, then those fields in that
  // order after the 10-byte header (the CRC-16 is not checked).
  std::string named = plain.substr(0, 10);
  named[3] = 0x1e;
  named += std::string("\x05\x00" "AB\x01\x00" "z", 7);  // XLEN 5, then 5 bytes
  named += std::string("page.html") + '\0' + "made by hand" + '\0';
  named += "\x12\x34";
  named += plain.substr(10);
  for (size_t piece = 1; piece <= 40; ++piece) {
    auto decoder = For("gzip");
    std::string out;
    ASSERT_EQ(DecodeInPieces(*decoder, named, piece, &out), ContentDecoder::Result::kOk)
        << "piece " << piece << ": " << decoder->error();
    EXPECT_EQ(out, text) << "piece " << piece;
  }
  // Reserved flag bits set: not a gzip header.
  named[3] = static_cast<char>(0x20);
  auto decoder = For("gzip");
  std::string out;
  EXPECT_EQ(DecodeInPieces(*decoder, named, 7, &out), ContentDecoder::Result::kError);
  EXPECT_EQ(decoder->error(), "reserved gzip flags set");
}

TEST(ContentDecoderTest, CodingsAreUndoneLastAppliedFirst) {
  const std::string text = PageText();
  // The server gzipped, then applied br: "Content-Encoding: gzip, br".
  const std::string coded = BrotliCoded(GzipFile(text));
  auto decoder = For("gzip, br");
  std::string out;
  ASSERT_EQ(DecodeInPieces(*decoder, coded, 4096, &out), ContentDecoder::Result::kOk) << decoder->error();
  EXPECT_EQ(out, text);
  // The other order cannot decode it.
  auto wrong = For("br, gzip");
  out.clear();
  EXPECT_EQ(DecodeInPieces(*wrong, coded, 4096, &out), ContentDecoder::Result::kError);
}

TEST(ContentDecoderTest, IdentityAndEmptyAreNothingToUndo) {
  for (std::string_view codings : {"", "identity", " Identity , ", "none"}) {
    auto decoder = For(codings);
    EXPECT_TRUE(decoder->identity()) << codings;
  }
  EXPECT_FALSE(For("identity, GZIP")->identity());
}

TEST(ContentDecoderTest, UnknownOrTooManyCodingsAreRefused) {
  std::string error;
  EXPECT_EQ(ContentDecoder::ForCodings("gzip, compress", &error), nullptr);
  EXPECT_EQ(error, "unsupported content coding 'compress'");
  error.clear();
  EXPECT_EQ(ContentDecoder::ForCodings("br, gzip, br", &error), nullptr);
  EXPECT_EQ(error, "more than 2 content codings");
  EXPECT_NE(ContentDecoder::ForCodings("gzip, identity, br", &error), nullptr);
}

TEST(ContentDecoderTest, ZstdFramesAskingForAHugeWindowAreRefused) {
  const std::string text = PageText();
  std::string out;
  auto small = For("zstd");
  ASSERT_EQ(DecodeInPieces(*small, ZstdCoded(text, 23), 4096, &out), ContentDecoder::Result::kOk) << small->error();
  EXPECT_EQ(out, text) << "8 MiB is allowed";
  auto huge = For("zstd");
  out.clear();
  EXPECT_EQ(DecodeInPieces(*huge, ZstdCoded(text, 27), 4096, &out), ContentDecoder::Result::kError);
  EXPECT_NE(huge->error().find("zstd"), std::string::npos) << huge->error();
  EXPECT_TRUE(out.empty());
}

TEST(ContentDecoderTest, AStreamCutShortKeepsWhatWasDecoded) {
  const std::string text = PageText();
  const std::string coded = GzipFile(text, 6);
  auto decoder = For("gzip");
  std::string out;
  ASSERT_EQ(DecodeInPieces(*decoder, coded.substr(0, coded.size() / 2), 4096, &out), ContentDecoder::Result::kOk);
  EXPECT_GT(out.size(), 0u);
  EXPECT_LT(out.size(), text.size());
  EXPECT_EQ(out, text.substr(0, out.size()));
}

TEST(ContentDecoderTest, AnIntermediateStageIsHeldToTheLimitToo) {
  // br whose output is a tiny gzip member and then 8 MiB that gzip
  // ignores: the final body stays small, the work would not. Stopped past
  // twice the limit.
  const std::string coded = BrotliCoded(GzipFile("hi") + std::string(8u << 20, '\0'));
  ASSERT_LT(coded.size(), 64u * 1024);
  auto decoder = For("gzip, br");
  std::string out;
  EXPECT_EQ(DecodeInPieces(*decoder, coded, 4096, &out, 100'000), ContentDecoder::Result::kFull);
  auto unbounded = For("gzip, br");
  out.clear();
  EXPECT_EQ(DecodeInPieces(*unbounded, coded, 4096, &out, 64u << 20), ContentDecoder::Result::kOk);
  EXPECT_EQ(out, "hi") << "the same stream passes under a limit it fits";
}

}  // namespace
}  // namespace zcrawl::fetcher

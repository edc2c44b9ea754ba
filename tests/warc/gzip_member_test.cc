// GzipMemberCompressor tests: at every level, each call appends exactly one
// gzip member (or a raw DEFLATE stream that AppendGzipMemberAround makes one) that zlib (an independent inflater) reads back byte for byte,
// alone from its offset as well as in the run of members, for empty, tiny,
// text, incompressible and multi-block inputs, whole or in pieces; level 1's Huffman tables
// fitted to earlier records (HuffmanTableFitter) keep both properties.
#include "warc/gzip_member.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "tests/support/gzip_members.h"
#include "warc/huffman_table_fitter.h"

namespace zcrawl {
namespace {

using ::zcrawl::testing::InflateGzipMembers;

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// HTML-like text that compresses the way crawled pages do.
std::string PageLikeText(size_t n) {
  std::string s;
  for (int i = 0; s.size() < n; ++i) {
    s += "<li><a href=\"/section/" + std::to_string(i * 7919 % 1000) + "/page.html\">Item " +
         std::to_string(i) + "</a> some words of text</li>\n";
  }
  s.resize(n);
  return s;
}

const std::vector<std::string>& Inputs() {
  static const std::vector<std::string> inputs = {
      "",
      "x",
      "first record",
      PageLikeText(18000),
      RandomBytes(70000, 1),        // incompressible, past one 64 KiB stored block
      std::string(100000, 'a'),     // one long run
      PageLikeText(3 << 20),        // several deflate blocks
      RandomBytes(3 << 20, 2),
  };
  return inputs;
}

class GzipMemberLevelTest : public ::testing::TestWithParam<int> {};

TEST_P(GzipMemberLevelTest, EachCallAppendsOneMemberThatInflatesBack) {
  GzipMemberCompressor gzip(GetParam());
  std::string out = "already here";  // appended to, never overwritten
  std::vector<size_t> starts;
  for (const std::string& in : Inputs()) {
    starts.push_back(out.size());
    ASSERT_TRUE(gzip.AppendMember(in, out).ok());
  }
  starts.push_back(out.size());
  ASSERT_EQ(out.substr(0, 12), "already here");
  EXPECT_EQ(InflateGzipMembers(out.substr(12)), Inputs());
  // Each member alone, from its offset: what a WARC reader seeking does.
  for (size_t i = 0; i < Inputs().size(); ++i) {
    const auto one = InflateGzipMembers(out.substr(starts[i], starts[i + 1] - starts[i]));
    ASSERT_EQ(one.size(), 1u) << "input " << i;
    EXPECT_EQ(one[0], Inputs()[i]) << "input " << i;
  }
}

TEST_P(GzipMemberLevelTest, PiecesMakeOneMemberOfTheirConcatenation) {
  // Empty pieces, and pieces that cross stored blocks' 65,535-byte limit.
  const std::string a = RandomBytes(65000, 4);
  const std::string b = PageLikeText(70000);
  const std::string c = "tail\r\n\r\n";
  GzipMemberCompressor gzip(GetParam());
  std::string out;
  ASSERT_TRUE(gzip.AppendMember({a, "", b, c}, out).ok());
  const size_t first = out.size();
  ASSERT_TRUE(gzip.AppendMember({"", ""}, out).ok());
  const auto members = InflateGzipMembers(out);
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0], a + b + c);
  EXPECT_EQ(members[1], "");
  if (GetParam() == 0) {
    // Stored: 10-byte header, 5 bytes per block, 8-byte trailer.
    const size_t total = a.size() + b.size() + c.size();
    EXPECT_EQ(first, 10 + total + 5 * ((total + 65534) / 65535) + 8);
    EXPECT_EQ(out.size() - first, 10u + 5 + 8);
  }
}

TEST_P(GzipMemberLevelTest, RawDeflateWrappedAfterAPrefixIsOneMemberOfBoth) {
  // What the fetcher compresses and the writer wraps: every input, behind
  // prefixes that are empty, header-sized and past one stored block.
  GzipMemberCompressor gzip(GetParam());
  const std::vector<std::string> prefixes = {"", "WARC/1.1\r\nWARC-Type: response\r\n\r\n",
                                             RandomBytes(70000, 5)};
  std::string out = "already here";
  const size_t start = out.size();
  std::vector<std::string> expected;
  for (const std::string& in : Inputs()) {
    for (const std::string& prefix : prefixes) {
      std::string deflate;
      Result<uint32_t> crc = gzip.AppendRawDeflate({in.substr(0, in.size() / 2), in.substr(in.size() / 2)}, deflate);
      ASSERT_TRUE(crc.ok());
      EXPECT_EQ(*crc, crc32(0, reinterpret_cast<const Bytef*>(in.data()), static_cast<uInt>(in.size())));
      AppendGzipMemberAround(prefix, deflate, *crc, in.size(), out);
      expected.push_back(prefix + in);
    }
  }
  EXPECT_EQ(out.substr(0, start), "already here");
  EXPECT_EQ(InflateGzipMembers(out.substr(start)), expected);
}

INSTANTIATE_TEST_SUITE_P(Levels, GzipMemberLevelTest, ::testing::Values(0, 1, 2, 6, 9, 12));

TEST(GzipMemberTest, WrappedMemberWithAWrongCrcOrSizeFailsZlibsCheck) {
  // The trailer is combined from the caller's CRC and size, never recomputed:
  // a wrong one must make a member zlib rejects (so the check above can fail).
  GzipMemberCompressor gzip(1);
  const std::string in = PageLikeText(18000);
  std::string deflate;
  Result<uint32_t> crc = gzip.AppendRawDeflate({in}, deflate);
  ASSERT_TRUE(crc.ok());
  for (auto [bad_crc, bad_size] : {std::pair{*crc ^ 1u, in.size()}, std::pair{*crc, in.size() + 1}}) {
    std::string member;
    AppendGzipMemberAround("head", deflate, bad_crc, bad_size, member);
    z_stream z{};
    ASSERT_EQ(inflateInit2(&z, 31), Z_OK);
    std::string buf(in.size() + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(member.data());
    z.avail_in = static_cast<uInt>(member.size());
    z.next_out = reinterpret_cast<Bytef*>(buf.data());
    z.avail_out = static_cast<uInt>(buf.size());
    EXPECT_EQ(inflate(&z, Z_FINISH), Z_DATA_ERROR);
    inflateEnd(&z);
  }
}

size_t MemberSize(int level, const std::string& in) {
  GzipMemberCompressor gzip(level);
  std::string out;
  EXPECT_TRUE(gzip.AppendMember(in, out).ok());
  return out.size();
}

TEST(GzipMemberTest, CompressesTextAtEveryLevelButZero) {
  const std::string page = PageLikeText(18000);
  EXPECT_GT(MemberSize(0, page), page.size());  // stored blocks
  for (int level : {1, 2, 6, 12}) EXPECT_LT(MemberSize(level, page), page.size() / 3) << level;
}

TEST(GzipMemberTest, IncompressibleInputGrowsOnlyByFraming) {
  const std::string noise = RandomBytes(1 << 20, 3);
  for (int level : {0, 1, 6}) {
    EXPECT_LT(MemberSize(level, noise), noise.size() + noise.size() / 1000 + 64) << level;
  }
}

// Pages that differ from each other as a site's pages do.
std::string VariedPage(int seed) {
  std::string s = "<html><head><title>Page " + std::to_string(seed) + "</title></head><body>\n";
  std::mt19937 rng(seed);
  while (s.size() < 18000) {
    s += "<p class=\"c" + std::to_string(rng() % 9) + "\">Words " + std::to_string(rng() % 100000) +
         " and <a href=\"/s" + std::to_string(rng() % 50) + "/p" + std::to_string(rng() % 5000) +
         ".html\">link " + std::to_string(rng() % 1000) + "</a></p>\n";
  }
  return s;
}

TEST(GzipMemberTest, LevelOneFollowsTheRecordsItCompressedAndStaysReadable) {
  GzipMemberCompressor fitted(1);
  std::string out;
  std::vector<std::string> inputs;
  for (int i = 0; i < 40; ++i) {
    inputs.push_back(VariedPage(i));
    ASSERT_TRUE(fitted.AppendMember(inputs.back(), out).ok());
  }
  // After 256 KiB of pages the tables are fitted: a new page compresses
  // about as well as igzip's level 1 (a fresh compressor) makes it.
  const std::string page = VariedPage(1000);
  std::string one;
  ASSERT_TRUE(fitted.AppendMember(page, one).ok());
  EXPECT_LT(one.size(), MemberSize(1, page) * 105 / 100);
  EXPECT_LT(one.size(), page.size() / 3);
  // Unlike data still round-trips and does not blow up.
  const std::string noise = RandomBytes(50000, 9);
  std::string tail;
  ASSERT_TRUE(fitted.AppendMember(noise, tail).ok());
  EXPECT_LT(tail.size(), noise.size() + 200);
  inputs.push_back(page);
  inputs.push_back(noise);
  EXPECT_EQ(InflateGzipMembers(out + one + tail), inputs);
}

TEST(HuffmanTableFitterTest, FitsAfterTheFirstSampleThenRefitsOnEveryFurtherMebibyte) {
  HuffmanTableFitter fitter;
  const std::string page = VariedPage(1);
  EXPECT_EQ(fitter.tables(), nullptr);
  uint64_t seen = 0;
  while (seen + page.size() < HuffmanTableFitter::kFirstFitBytes) {
    fitter.Observe(page);
    seen += page.size();
  }
  EXPECT_EQ(fitter.tables(), nullptr) << "fitted before 256 KiB";
  fitter.Observe(page);
  ASSERT_NE(fitter.tables(), nullptr);
  EXPECT_EQ(fitter.fits(), 1u);
  // Then one record in eight is sampled: a MiB of samples takes ~8 MiB.
  uint64_t offered = 0;
  while (fitter.fits() == 1 && offered < (64u << 20)) {
    fitter.Observe(page);
    offered += page.size();
  }
  EXPECT_EQ(fitter.fits(), 2u);
  EXPECT_GE(offered, 7 * HuffmanTableFitter::kRefitBytes);
  EXPECT_LE(offered, 9 * HuffmanTableFitter::kRefitBytes);
}

TEST(GzipMemberTest, LevelsOutsideTheRangeAreClamped) {
  const std::string page = PageLikeText(18000);
  GzipMemberCompressor low(-5);
  GzipMemberCompressor high(99);
  std::string a, b;
  ASSERT_TRUE(low.AppendMember(page, a).ok());
  ASSERT_TRUE(high.AppendMember(page, b).ok());
  EXPECT_EQ(a.size(), MemberSize(0, page));
  EXPECT_EQ(b.size(), MemberSize(kMaxGzipMemberLevel, page));
  EXPECT_EQ(InflateGzipMembers(a + b), (std::vector<std::string>{page, page}));
}

}  // namespace
}  // namespace zcrawl

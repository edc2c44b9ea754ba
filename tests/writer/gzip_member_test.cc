// GzipMemberCompressor tests: at every level, each call appends exactly one
// gzip member that zlib (an independent inflater) reads back byte for byte,
// alone from its offset as well as in the run of members, for empty, tiny,
// text, incompressible and multi-block inputs.
#include "writer/gzip_member.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/support/gzip_members.h"

namespace zcrawl::writer {
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

INSTANTIATE_TEST_SUITE_P(Levels, GzipMemberLevelTest, ::testing::Values(0, 1, 2, 6, 9, 12));

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
}  // namespace zcrawl::writer

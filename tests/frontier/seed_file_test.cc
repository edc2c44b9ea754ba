// AddSeedFile: the good lines of --seeds FILE join the frontier's seeds,
// and the bad ones are counted for the summary (seeds_skipped).
#include "frontier/admission/seed_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

TEST(SeedFileTest, AddsTheGoodLinesAndCountsTheSkippedOnes) {
  const std::string path = zcrawl::testing::MakeTempDir("seed_file_test") + "/seeds.txt";
  std::ofstream(path) << "# seeds\nhttp://a.test/\nftp://b.test/\nnot a url\nhttps://c.test/\n";
  FrontierOptions options;
  options.seeds = {"http://first.test/"};
  options.seeds_file = path;
  ASSERT_TRUE(AddSeedFile(options).ok());
  EXPECT_EQ(options.seeds, (std::vector<std::string>{"http://first.test/", "http://a.test/", "https://c.test/"}));
  EXPECT_EQ(options.seeds_skipped, 2u);
}

TEST(SeedFileTest, NoFileAddsNothing) {
  FrontierOptions options;
  ASSERT_TRUE(AddSeedFile(options).ok());
  EXPECT_TRUE(options.seeds.empty());
  EXPECT_EQ(options.seeds_skipped, 0u);
}

}  // namespace
}  // namespace zcrawl::frontier

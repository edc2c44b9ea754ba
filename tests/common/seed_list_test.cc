// Seed lists (--seeds FILE): comments and blank lines skipped, bad lines
// reported with their line numbers, the rest kept in order.
#include "common/seed_list.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace zcrawl {
namespace {

TEST(SeedListTest, KeepsGoodLinesInOrderAndReportsBadOnesByLineNumber) {
  std::istringstream in(
      "# a comment\n"
      "http://a.test/\n"
      "\n"
      "   https://b.test/x?y=1   \n"
      "ftp://c.test/\n"
      "  # indented comment\n"
      "not a url\n"
      "http://d.test/\r\n");
  const SeedList list = ParseSeedList(in, "seeds.txt");
  EXPECT_EQ(list.urls, (std::vector<std::string>{"http://a.test/", "https://b.test/x?y=1", "http://d.test/"}));
  ASSERT_EQ(list.errors.size(), 2u);
  EXPECT_EQ(list.errors[0], "seeds.txt:5: 'ftp://c.test/' is not an http or https URL");
  EXPECT_EQ(list.errors[1].rfind("seeds.txt:7: 'not a url' is not a URL", 0), 0u) << list.errors[1];
}

TEST(SeedListTest, EmptyInputGivesNoSeedsAndNoErrors) {
  std::istringstream in("# only a comment\n\n");
  const SeedList list = ParseSeedList(in, "x");
  EXPECT_TRUE(list.urls.empty());
  EXPECT_TRUE(list.errors.empty());
}

TEST(SeedListTest, ReadsAFileAndRefusesAMissingOne) {
  const std::string path = ::testing::TempDir() + "/seed_list_test.txt";
  {
    std::ofstream out(path);
    out << "http://a.test/\n";
  }
  auto list = ReadSeedList(path);
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->urls, std::vector<std::string>{"http://a.test/"});
  auto missing = ReadSeedList(path + ".missing");
  EXPECT_FALSE(missing.ok());
}

}  // namespace
}  // namespace zcrawl

// DurableFile (writer/durable_file.h): the durable prefix every file sink
// keeps, and the torn tail a crash leaves.
#include "writer/durable_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_process.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(DurableFileTest, OpenCutsATornLastLineOnlyWhenAskedAndCountsTheRestDurable) {
  const std::string dir = testing::MakeTempDir("durable-file");
  const std::string lines = dir + "/lines";
  std::ofstream(lines) << "one\ntwo\nthr";
  DurableFile file;
  ASSERT_TRUE(file.Open(lines, DurableFile::Tail::kCutTornLine).ok());
  EXPECT_FALSE(file.created());
  EXPECT_EQ(Contents(lines), "one\ntwo\n");
  EXPECT_EQ(file.durable_size(), 8u);
  file.Close();

  const std::string binary = dir + "/binary";
  std::ofstream(binary) << "no newline";
  ASSERT_TRUE(file.Open(binary, DurableFile::Tail::kKeep).ok());
  EXPECT_EQ(file.durable_size(), 10u);

  ASSERT_TRUE(file.Open(dir + "/new", DurableFile::Tail::kCutTornLine).ok());
  EXPECT_TRUE(file.created());
}

TEST(DurableFileTest, AFailedWindowIsCutBackToWhatTheLastSyncMadeDurable) {
  const std::string path = testing::MakeTempDir("durable-file") + "/f";
  DurableFile file;
  ASSERT_TRUE(file.Open(path, DurableFile::Tail::kKeep).ok());
  ASSERT_TRUE(file.Append("kept").ok());
  ASSERT_TRUE(file.Sync().ok());
  ASSERT_TRUE(file.Append(" lost").ok());
  EXPECT_EQ(Contents(path), "kept lost");
  EXPECT_EQ(file.size(), 9u);
  EXPECT_EQ(file.durable_size(), 4u);
  ASSERT_TRUE(file.CutToDurable().ok());
  EXPECT_EQ(Contents(path), "kept");
  ASSERT_TRUE(file.is_open());  // and goes on at the cut
  ASSERT_TRUE(file.Append("!").ok());
  file.MarkDurable(file.size());  // synced by someone else (syncfs)
  ASSERT_TRUE(file.CutToDurable().ok());
  EXPECT_EQ(Contents(path), "kept!");
}

TEST(DurableFileTest, CreateNeverOpensAnExistingFileAndRemoveDeletesWhatItMade) {
  const std::string dir = testing::MakeTempDir("durable-file");
  std::ofstream(dir + "/taken") << "someone's";
  DurableFile file;
  Result<bool> created = file.Create(dir + "/taken");
  ASSERT_TRUE(created.ok());
  EXPECT_FALSE(*created);
  EXPECT_FALSE(file.is_open());
  EXPECT_EQ(Contents(dir + "/taken"), "someone's");
  created = file.Create(dir + "/mine");
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(*created);
  file.Remove();
  EXPECT_FALSE(fs::exists(dir + "/mine"));
}

TEST(DurableFileTest, CutTornLineLeavesAMissingFileMissing) {
  const std::string dir = testing::MakeTempDir("durable-file");
  ASSERT_TRUE(CutTornLine(dir + "/absent").ok());
  EXPECT_FALSE(fs::exists(dir + "/absent"));
  std::ofstream(dir + "/torn") << "whole\nhal";
  ASSERT_TRUE(CutTornLine(dir + "/torn").ok());
  EXPECT_EQ(Contents(dir + "/torn"), "whole\n");
}

}  // namespace
}  // namespace zcrawl::writer

// Exactly once in the WARC files (writer/warc_recovery.h): bytes no durable
// index line names are cut, whether an earlier run left them (Open) or a
// failed window put them in a file rotation had already closed. Each test
// first makes the unacknowledged bytes really exist, then checks them gone
// with the independent reader (tests/writer/warc_check.py).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/clock.h"
#include "tests/support/file_size_limit.h"
#include "tests/support/warc_checker.h"
#include "writer/warc_index.h"
#include "writer/warc_sink.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

v1::Page PageNumber(int i, size_t body_bytes) {
  std::mt19937 rng(static_cast<uint32_t>(i));
  std::string body(body_bytes, '\0');
  for (char& c : body) c = static_cast<char>(rng());  // incompressible: sizes are predictable
  v1::Page page;
  page.set_page_id("fetcher-1/" + std::to_string(i));
  page.set_url("http://example.com/p" + std::to_string(i));
  page.set_http_status(200);
  page.set_fetched_at_ms(1796005077123);
  page.set_body(std::move(body));
  return page;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<fs::path> FilesEndingIn(const fs::path& dir, std::string_view suffix) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().ends_with(suffix)) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Response records per target URI, as the independent reader sees them.
std::map<std::string, int> ResponsesByUri(const fs::path& dir) {
  const testing::WarcCheckResult check = testing::RunWarcChecker(dir.string());
  EXPECT_EQ(check.exit_code, 0) << check.summary.dump(2).substr(0, 4000);
  std::map<std::string, int> counts;
  for (const auto& response : check.summary["responses"]) ++counts[response["uri"].get<std::string>()];
  return counts;
}

std::map<std::string, int> EachOnce(int from, int to) {
  std::map<std::string, int> counts;
  for (int i = from; i < to; ++i) counts[PageNumber(i, 0).url()] = 1;
  return counts;
}

class WarcRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/warc_recovery_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    dir_ = root_ / "out";
    options_.out_dir = dir_.string();
    options_.warc_prefix = "test";
  }
  void TearDown() override { fs::remove_all(root_); }

  // A WARC file a sink writes for pages [from, to) in a folder of its own,
  // with serial `serial`: what a killed run had written past its last
  // index line. `pages_from` is where its pages start (after warcinfo).
  struct WrittenFile {
    std::string name;
    std::string bytes;
    uint64_t pages_from = 0;
  };
  WrittenFile WriteElsewhere(int from, int to, int serial) {
    SinkOptions other = options_;
    other.out_dir = (root_ / ("other" + std::to_string(from))).string();
    fs::create_directories(other.out_dir);
    // A lower serial taken (and set aside by the sink's own recovery).
    if (serial > 0) {
      std::ofstream(fs::path(other.out_dir) / ("test-20000101000000-0000" + std::to_string(serial - 1) + ".warc.gz"));
    }
    WarcSink sink(other, kDefaultWarcGzipLevel, RealClock::Get(), /*threads=*/0);
    EXPECT_TRUE(sink.Open().ok());
    for (int i = from; i < to; ++i) EXPECT_TRUE(sink.Write(PageNumber(i, 3000)).ok());
    EXPECT_TRUE(sink.Close().ok());
    const auto files = FilesEndingIn(other.out_dir, ".warc.gz");
    EXPECT_EQ(files.size(), 1u);
    if (files.empty()) return {};
    WrittenFile written{files[0].filename().string(), ReadAll(files[0]), UINT64_MAX};
    EXPECT_TRUE(ForEachWarcIndexLine(sink.index_path(), other.out_dir, 0, [&](const WarcIndexLine& line) {
                  written.pages_from = std::min(written.pages_from, line.offset);
                }).ok());
    return written;
  }

  fs::path root_;
  fs::path dir_;
  SinkOptions options_;
};

TEST_F(WarcRecoveryTest, OpenCutsWhatAnEarlierRunWroteAfterItsLastIndexLine) {
  {
    WarcSink sink(options_);
    ASSERT_TRUE(sink.Open().ok());
    for (int i = 0; i < 2; ++i) ASSERT_TRUE(sink.Write(PageNumber(i, 3000)).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  const auto ours = FilesEndingIn(dir_, ".warc.gz");
  ASSERT_EQ(ours.size(), 1u);
  const std::string acknowledged = ReadAll(ours[0]);
  // The killed run's leftovers: pages 2-3 appended to the indexed file, and
  // a later file holding pages 4-5 that no index line names.
  const WrittenFile tail = WriteElsewhere(2, 4, 0);
  const WrittenFile later = WriteElsewhere(4, 6, 1);
  ASSERT_TRUE(later.name.ends_with("-00001.warc.gz")) << later.name;
  std::ofstream(ours[0], std::ios::app | std::ios::binary) << tail.bytes.substr(tail.pages_from);
  std::ofstream(dir_ / later.name, std::ios::binary) << later.bytes;
  std::map<std::string, int> before = EachOnce(0, 6);
  ASSERT_EQ(ResponsesByUri(dir_), before) << "the fault's bytes are not there";

  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  EXPECT_EQ(sink.recovered().files_cut, 1u);
  EXPECT_GT(sink.recovered().bytes_cut, 6000u);
  EXPECT_EQ(sink.recovered().files_set_aside, 1u);
  EXPECT_EQ(ReadAll(ours[0]), acknowledged);
  EXPECT_EQ(ResponsesByUri(dir_), EachOnce(0, 2));
  // The pages come again and are in the files once.
  for (int i = 2; i < 6; ++i) ASSERT_TRUE(sink.Write(PageNumber(i, 3000)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_TRUE(sink.current_path().ends_with("-00002.warc.gz")) << "a set-aside serial was reused";
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(ResponsesByUri(dir_), EachOnce(0, 6));
  EXPECT_EQ(FilesEndingIn(dir_, ".unacknowledged").size(), 1u);
}

TEST_F(WarcRecoveryTest, AFirstRunKilledBeforeItsFirstIndexLineLeavesNoCapture) {
  ASSERT_TRUE(fs::create_directories(dir_));
  const WrittenFile killed = WriteElsewhere(0, 3, 0);
  std::ofstream(dir_ / killed.name, std::ios::binary) << killed.bytes;
  ASSERT_EQ(ResponsesByUri(dir_), EachOnce(0, 3)) << "the fault's bytes are not there";
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  EXPECT_EQ(sink.recovered().files_set_aside, 1u);
  EXPECT_TRUE(FilesEndingIn(dir_, ".warc.gz").empty());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sink.Write(PageNumber(i, 3000)).ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(ResponsesByUri(dir_), EachOnce(0, 3));
}

// A window that rotated into new files and then failed: the pages it had put
// into the files rotation closed must go too, or they are there twice once
// the window is given again.
TEST_F(WarcRecoveryTest, AFailedWindowCutsThePagesItPutIntoFilesRotationClosed) {
  options_.warc_max_bytes = 16 * 1024;  // a few pages a file
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(sink.Write(PageNumber(i, 3000)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  // The index write of the next flush is what fails: pad the index (lines
  // that are not JSON are skipped) past every WARC file's size.
  {
    std::ofstream pad(sink.index_path(), std::ios::app);
    pad << std::string(100000, '#') << "\n";
  }
  {
    testing::FileSizeLimit limit(fs::file_size(sink.index_path()) + 50);
    for (int i = 2; i < 20; ++i) ASSERT_TRUE(sink.Write(PageNumber(i, 3000)).ok());
    ASSERT_TRUE(sink.BeginFlush().ok());  // the WARC bytes are written, rotated files fsynced
    EXPECT_GE(FilesEndingIn(dir_, ".warc.gz").size(), 3u) << "no rotation in the window";
    EXPECT_FALSE(sink.FinishFlush().ok());
  }
  EXPECT_FALSE(sink.Flush().ok());  // the (empty) window after it fails too (warc_sink.h)
  EXPECT_GE(sink.recovered().files_cut + sink.recovered().files_set_aside, 2u);
  EXPECT_EQ(ResponsesByUri(dir_), EachOnce(0, 2));
  for (int i = 2; i < 20; ++i) ASSERT_TRUE(sink.Write(PageNumber(i, 3000)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(ResponsesByUri(dir_), EachOnce(0, 20));
}

}  // namespace
}  // namespace zcrawl::writer

#include "writer/files_sink.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "tests/support/crawl_output.h"
#include "tests/support/file_size_limit.h"
#include "tests/support/test_process.h"

namespace zcrawl::writer {
namespace {

v1::Page MakePage(const std::string& url, const std::string& body, int n = 0) {
  v1::Page page;
  page.set_url(url);
  page.set_final_url(url);
  page.set_page_id("f/" + std::to_string(n));
  page.set_http_status(200);
  page.set_content_type("text/html");
  page.set_body(body);
  return page;
}

TEST(FilesSinkTest, PathsMirrorTheSite) {
  EXPECT_EQ(FilesSinkPathFor("http://h.test/", "text/html"), "h.test/index.html");
  EXPECT_EQ(FilesSinkPathFor("http://h.test:8080/a/b.html", "text/html"), "h.test_8080/a/b.html");
  EXPECT_EQ(FilesSinkPathFor("http://h.test/a/", "text/html"), "h.test/a/index.html");
}

TEST(FilesSinkTest, NoUrlEscapesTheOutputFolder) {
  for (const char* url : {"http://h.test/%2e%2e/%2e%2e/etc/passwd", "http://h.test/../../x",
                          "http://h.test/a/..%2f..%2fb", "http://h.test/.%2e/x"}) {
    const std::string path = FilesSinkPathFor(url, "text/html");
    EXPECT_NE(path.front(), '/');
    // No segment may be "." or ".." (a name like "..%2fb" is one harmless file).
    size_t start = 0;
    while (start <= path.size()) {
      size_t end = path.find('/', start);
      if (end == std::string::npos) end = path.size();
      const std::string segment = path.substr(start, end - start);
      EXPECT_NE(segment, "..") << url << " -> " << path;
      EXPECT_NE(segment, ".") << url << " -> " << path;
      EXPECT_FALSE(segment.empty()) << url << " -> " << path;
      start = end + 1;
    }
  }
}

// A failed write or flush leaves nothing behind, so the pages of that window
// (given again, sink_group.h) are stored under their own names once.
TEST(FilesSinkTest, AFailedWriteOrFlushLeavesNoFileAndNoIndexLine) {
  const std::string dir = zcrawl::testing::MakeTempDir("files-sink-fail");
  SinkOptions options;
  options.out_dir = dir;
  FilesSink sink(options);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/kept", "K", 1)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  const auto durable_index = std::filesystem::file_size(dir + "/index.jsonl");
  {
    // Files past 2 KiB fail with EFBIG: the big body, then the index.
    zcrawl::testing::FileSizeLimit limit(2048);
    Status big = sink.Write(MakePage("http://h.test/big", std::string(4096, 'b'), 2));
    EXPECT_FALSE(big.ok());
    EXPECT_FALSE(std::filesystem::exists(dir + "/h.test/big")) << "a half-written page stayed";
    for (int i = 0; i < 40; ++i) {
      ASSERT_TRUE(sink.Write(MakePage("http://h.test/p" + std::to_string(i), "P", 10 + i)).ok());
    }
    EXPECT_TRUE(std::filesystem::exists(dir + "/h.test/p0"));
    EXPECT_FALSE(sink.Flush().ok()) << "the index did not outgrow the limit";
  }
  EXPECT_EQ(std::filesystem::file_size(dir + "/index.jsonl"), durable_index);
  EXPECT_FALSE(std::filesystem::exists(dir + "/h.test/p0")) << "a file of the failed window stayed";
  // Given again, the window is stored under the natural names.
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(sink.Write(MakePage("http://h.test/p" + std::to_string(i), "P", 10 + i)).ok());
  }
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  auto index = zcrawl::testing::ReadIndex(dir);
  EXPECT_EQ(index.size(), 41u);
  EXPECT_EQ(index["http://h.test/p0"].size(), 1u);
  EXPECT_EQ(index["http://h.test/p0"][0].file, "h.test/p0");
  std::filesystem::remove_all(dir);
}

TEST(FilesSinkTest, WritesBodiesAndIndexWithoutOverwritingAnother) {
  const std::string dir = zcrawl::testing::MakeTempDir("files-sink");
  SinkOptions options;
  options.out_dir = dir;
  FilesSink sink(options);
  ASSERT_TRUE(sink.Open().ok());
  // /a as a file, then /a/b needs a directory called "a": a clash.
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/a", "A", 1)).ok());
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/a/b", "B", 2)).ok());
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/q?x=1", "Q1", 3)).ok());
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/q?x=2", "Q2", 4)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  auto index = zcrawl::testing::ReadIndex(dir);
  ASSERT_EQ(index.size(), 4u);
  std::set<std::string> files;
  for (const auto& [url, entries] : index) {
    ASSERT_EQ(entries.size(), 1u);
    files.insert(entries[0].file);
  }
  EXPECT_EQ(files.size(), 4u) << "two URLs share a file";
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/" + index["http://h.test/a"][0].file), "A");
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/" + index["http://h.test/a/b"][0].file), "B");
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/" + index["http://h.test/q?x=2"][0].file), "Q2");
  std::filesystem::remove_all(dir);
}

// A recrawl's 304 gets a line and no file; a page that names an earlier
// capture but is no 304 (a confused or hostile fetcher) is stored whole.
TEST(FilesSinkTest, ANotModifiedAnswerGoesWithoutAFile) {
  const std::string dir = zcrawl::testing::MakeTempDir("files-sink-304");
  SinkOptions options;
  options.out_dir = dir;
  FilesSink sink(options);
  ASSERT_TRUE(sink.Open().ok());
  v1::Page same = MakePage("http://h.test/same", "", 1);
  same.set_http_status(304);
  same.mutable_not_modified_since()->set_fetched_at_ms(5000);
  v1::Page odd = MakePage("http://h.test/odd", "BODY", 2);
  odd.mutable_not_modified_since()->set_fetched_at_ms(5000);
  ASSERT_TRUE(sink.Write(same).ok());
  ASSERT_TRUE(sink.Write(odd).ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  auto index = zcrawl::testing::ReadIndex(dir);
  ASSERT_EQ(index.size(), 2u);
  EXPECT_EQ(index["http://h.test/same"][0].file, "");
  ASSERT_NE(index["http://h.test/odd"][0].file, "");
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/" + index["http://h.test/odd"][0].file), "BODY");
  std::filesystem::remove_all(dir);
}

// A redirect gets a line naming its target and no file: stored at its
// path, /dir's 301 would take the name the folder of /dir/'s index.html
// needs, and the page itself would go to the flat names. A 3xx without a
// Location is a page like any other.
TEST(FilesSinkTest, ARedirectGoesWithoutAFileAndLeavesItsPathToItsTarget) {
  const std::string dir = zcrawl::testing::MakeTempDir("files-sink-redirect");
  SinkOptions options;
  options.out_dir = dir;
  FilesSink sink(options);
  ASSERT_TRUE(sink.Open().ok());
  v1::Page moved = MakePage("http://h.test/dir", "<a href=/dir/>moved</a>", 1);
  moved.set_http_status(301);
  v1::Header* location = moved.add_headers();
  location->set_name("Location");
  location->set_value("http://h.test/dir/");
  v1::Page choices = MakePage("http://h.test/choose", "PICK", 2);
  choices.set_http_status(300);
  ASSERT_TRUE(sink.Write(moved).ok());
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/dir/", "INDEX", 3)).ok());
  ASSERT_TRUE(sink.Write(choices).ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  auto index = zcrawl::testing::ReadIndex(dir);
  ASSERT_EQ(index.size(), 3u);
  EXPECT_EQ(index["http://h.test/dir"][0].file, "");
  EXPECT_EQ(index["http://h.test/dir"][0].status, 301);
  EXPECT_EQ(index["http://h.test/dir/"][0].file, "h.test/dir/index.html");
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/h.test/dir/index.html"), "INDEX");
  ASSERT_NE(index["http://h.test/choose"][0].file, "");
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/" + index["http://h.test/choose"][0].file), "PICK");
  EXPECT_NE(zcrawl::testing::ReadFile(dir + "/index.jsonl").find(R"("location":"http://h.test/dir/")"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(FilesSinkTest, ReopeningAppendsAndKeepsEarlierFiles) {
  const std::string dir = zcrawl::testing::MakeTempDir("files-sink-reopen");
  SinkOptions options;
  options.out_dir = dir;
  {
    FilesSink sink(options);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(MakePage("http://h.test/", "one", 1)).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  {
    FilesSink sink(options);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(MakePage("http://h.test/", "two", 2)).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  auto index = zcrawl::testing::ReadIndex(dir);
  ASSERT_EQ(index["http://h.test/"].size(), 2u);
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/" + index["http://h.test/"][0].file), "one");
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/" + index["http://h.test/"][1].file), "two");
  std::filesystem::remove_all(dir);
}

TEST(FilesSinkTest, FolderRemovedUnderTheSinkIsMadeAgain) {
  const std::string dir = zcrawl::testing::MakeTempDir("files-sink-rmdir");
  SinkOptions options;
  options.out_dir = dir;
  FilesSink sink(options);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/docs/one", "1", 1)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  // The sink remembers h.test/docs exists; an operator removes it anyway.
  std::filesystem::remove_all(dir + "/h.test");
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/docs/two", "2", 2)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  auto index = zcrawl::testing::ReadIndex(dir);
  ASSERT_EQ(index["http://h.test/docs/two"].size(), 1u);
  EXPECT_EQ(index["http://h.test/docs/two"][0].file, "h.test/docs/two");
  EXPECT_EQ(zcrawl::testing::ReadFile(dir + "/h.test/docs/two"), "2");
  std::filesystem::remove_all(dir);
}

TEST(FilesSinkTest, UnwritableFolderIsAClearError) {
  SinkOptions options;
  options.out_dir = "/proc/zcrawl-cannot-write-here";
  FilesSink sink(options);
  Status s = sink.Open();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/proc/zcrawl-cannot-write-here"), std::string::npos);
}

// The files of every regular file under `dir`, relative to it, without the
// index and the writer's own folder.
std::multiset<std::string> PageFilesUnder(const std::string& dir) {
  std::multiset<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string relative = std::filesystem::relative(e.path(), dir).string();
    if (e.is_regular_file() && relative != "index.jsonl" && !relative.starts_with(".zcrawl")) files.insert(relative);
  }
  return files;
}

// A writer killed in the middle of a window (a child process, SIGKILL after
// two page files were written and before their index lines): the next Open
// removes those files, so the pages, given again, take their own names once
// and no second copy lands in _/. A name taken by an earlier, acknowledged
// page of another URL stays.
TEST(FilesSinkTest, PageFilesOfAKilledWindowAreRemovedSoEachPageIsStoredOnce) {
  const std::string dir = zcrawl::testing::MakeTempDir("files-sink-killed");
  SinkOptions options;
  options.out_dir = dir;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    FilesSink sink(options);
    bool ok = sink.Open().ok() && sink.Write(MakePage("http://h.test/a_b", "K", 1)).ok() && sink.Flush().ok();
    // Unacknowledged: its own name, and one whose name "a_b" already holds
    // (it goes to _/, after its natural name was recorded).
    ok = ok && sink.Write(MakePage("http://h.test/lost", "L", 2)).ok() &&
         sink.Write(MakePage("http://h.test/a;b", "T", 3)).ok();
    if (!ok) _exit(1);
    raise(SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child did not reach its kill";
  const auto left = PageFilesUnder(dir);
  ASSERT_EQ(left.size(), 3u) << "the killed window's files are not there";
  ASSERT_EQ(left.count("h.test/lost"), 1u);

  FilesSink sink(options);
  ASSERT_TRUE(sink.Open().ok());
  EXPECT_EQ(sink.unacknowledged_removed(), 2u);
  EXPECT_EQ(PageFilesUnder(dir), std::multiset<std::string>{"h.test/a_b"});
  ASSERT_TRUE(sink.Write(MakePage("http://h.test/lost", "L", 2)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(PageFilesUnder(dir), (std::multiset<std::string>{"h.test/a_b", "h.test/lost"}));
}

}  // namespace
}  // namespace zcrawl::writer

// CDXJ beside WARC files: the line format (warc/cdxj.h), each WARC file's
// sorted CDXJ written by the sink and made good after a crash, and the
// merged index of `./run index` (writer/warc_file_cdxj.h). Agreement with
// warcio's own indexer on a real crawl is in
// tests/integration/crawl_e2e_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/gzip_members.h"
#include "tests/support/test_process.h"
#include "warc/cdxj.h"
#include "writer/warc_file_cdxj.h"
#include "writer/warc_sink.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

// Expected keys as warcio's getSurt gives them (checked against warcio
// 2.4.11 when written).
TEST(SurtKeyTest, FollowsWarciosRules) {
  EXPECT_EQ(SurtKey("http://example.com/"), "com,example)/");
  EXPECT_EQ(SurtKey("https://www.example.com/a/B?b=2&a=1#f"), "com,example)/a/b?a=1&b=2");
  EXPECT_EQ(SurtKey("http://www2.example.com:8080/"), "com,example:8080)/");
  EXPECT_EQ(SurtKey("https://WWW.Example.com/"), "com,example,www)/");
  EXPECT_EQ(SurtKey("http://wwwx.example.com/"), "com,example,wwwx)/");
  EXPECT_EQ(SurtKey("http://127.0.0.1:8000/p?x"), "1,0,0,127:8000)/p?x");
  EXPECT_EQ(SurtKey("http://example.com:80/"), "com,example)/");
  EXPECT_EQ(SurtKey("https://[::1]:8443/x"), "[::1]:8443)/x");
  EXPECT_EQ(SurtKey("http://a/?"), "a)/");
  EXPECT_EQ(SurtKey("http://a/?&"), "a)/?&");
  EXPECT_EQ(SurtKey("http://www.example.com./"), ",com,example)/");
  EXPECT_EQ(SurtKey("ftp://x/"), "ftp://x/");
  EXPECT_EQ(SurtKey("dns:example.com"), "dns:example.com");
}

TEST(CdxjLineTest, FieldsInWarciosOrderNumbersAsStringsAbsentOnesLeftOut) {
  CdxjRecordFields fields;
  fields.url = "http://127.0.0.1:8000/a?b=1";
  fields.warc_date = "2026-11-30T02:17:57.123Z";
  fields.has_mime = true;
  fields.mime = CdxjMime(" text/html ; charset=utf-8");
  fields.status = 200;
  fields.digest = "ABC";
  EXPECT_EQ(CdxjLine(fields, 512, 1024, "z-1.warc.gz"),
            "1,0,0,127:8000)/a?b=1 20261130021757 {\"url\":\"http://127.0.0.1:8000/a?b=1\",\"mime\":\"text/html\","
            "\"status\":\"200\",\"digest\":\"ABC\",\"length\":\"512\",\"offset\":\"1024\",\"filename\":\"z-1.warc.gz\"}");
  fields.has_mime = false;
  fields.digest.clear();
  EXPECT_EQ(CdxjLine(fields, 1, 0, "f"),
            "1,0,0,127:8000)/a?b=1 20261130021757 {\"url\":\"http://127.0.0.1:8000/a?b=1\",\"status\":\"200\","
            "\"length\":\"1\",\"offset\":\"0\",\"filename\":\"f\"}");
}

TEST(CdxjLineTest, TimestampsGoBothWays) {
  EXPECT_EQ(CdxjTimestamp("2026-11-30T02:17:57.123Z"), "20261130021757");
  EXPECT_EQ(IsoTimeOfCdxjTimestamp("20261130021757"), "2026-11-30T02:17:57Z");
  EXPECT_EQ(IsoTimeOfCdxjTimestamp("20261130021757 {\"url\":1}"), "2026-11-30T02:17:57Z");
  EXPECT_EQ(IsoTimeOfCdxjTimestamp("2026113002175"), std::nullopt);
  EXPECT_EQ(IsoTimeOfCdxjTimestamp("2026-11-30T02:"), std::nullopt);
}

TEST(CdxjLineTest, StringsAreEscapedAsJsonStringifyDoes) {
  std::string out;
  AppendJsStringLiteral(out, "a\"\\\b\f\n\r\t\x01\x7f\xc3\xa9");
  EXPECT_EQ(out, "\"a\\\"\\\\\\b\\f\\n\\r\\t\\u0001\x7f\xc3\xa9\"");
  out.clear();
  AppendJsStringLiteral(out, "\xff");  // not UTF-8: U+FFFD, as a JS string holds it
  EXPECT_EQ(out, "\"\xef\xbf\xbd\"");
}

class WarcCdxjTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("warc-cdxj"); }

  SinkOptions Options(uint64_t max_bytes = 1ull << 30) {
    SinkOptions options;
    options.out_dir = dir_;
    options.warc_prefix = "z";
    options.warc_max_bytes = max_bytes;
    return options;
  }

  static v1::Page Page(int i, bool with_type = true) {
    v1::Page page;
    page.set_url("http://127.0.0.1:8000/p" + std::to_string(i));
    page.set_dedup_key(page.url());
    page.set_http_status(i % 7 == 0 ? 404 : 200);
    page.set_fetched_at_ms(1796005077123 + i * 1000);
    if (with_type) {
      auto* h = page.add_headers();
      h->set_name("content-type");
      h->set_value("text/html; charset=utf-8");
    }
    page.set_body("<html>page " + std::to_string(i) + std::string(static_cast<size_t>(i * 37 % 900), 'x'));
    return page;
  }

  static std::vector<std::string> Lines(const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  std::vector<fs::path> Files(std::string_view suffix) const {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().filename().string().ends_with(suffix)) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  // Every line of `cdxj` points at a gzip member of its WARC file that is
  // the response record of the line's URL; the lines are sorted. Returns
  // the URLs.
  std::vector<std::string> CheckCdxj(const fs::path& cdxj) const {
    std::vector<std::string> lines = Lines(cdxj);
    EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end())) << cdxj;
    std::vector<std::string> urls;
    for (const std::string& line : lines) {
      const size_t brace = line.find('{');
      const auto json = nlohmann::json::parse(line.substr(brace));
      const std::string url = json["url"];
      urls.push_back(url);
      EXPECT_EQ(line.substr(0, line.find(' ')), SurtKey(url));
      const std::string file = json["filename"];
      EXPECT_EQ(CdxjPathFor(dir_, file), cdxj.string());
      std::ifstream in(fs::path(dir_) / file, std::ios::binary);
      in.seekg(std::stoll(json["offset"].get<std::string>()));
      std::string member(std::stoull(json["length"].get<std::string>()), '\0');
      in.read(member.data(), static_cast<std::streamsize>(member.size()));
      const std::vector<std::string> records = testing::InflateGzipMembers(member);
      EXPECT_EQ(records.size(), 1u) << line;  // exactly one whole member
      if (records.empty()) continue;
      EXPECT_TRUE(records[0].starts_with("WARC/1.1\r\nWARC-Type: response\r\n")) << records[0].substr(0, 80);
      EXPECT_NE(records[0].find("WARC-Target-URI: " + url + "\r\n"), std::string::npos) << line;
      const std::string status = json["status"];
      EXPECT_NE(records[0].find(" " + status + " "), std::string::npos) << line;
    }
    return urls;
  }

  std::string dir_;
};

TEST_F(WarcCdxjTest, EveryWarcFileGetsItsSortedCdxjPointingAtItsResponses) {
  {
    WarcSink sink(Options(/*max_bytes=*/6000), 1, RealClock::Get(), /*threads=*/2);
    ASSERT_TRUE(sink.Open().ok());
    for (int i = 1; i <= 40; ++i) {
      v1::Page page = Page(i, /*with_type=*/i % 5 != 0);
      ASSERT_TRUE(sink.Write(page).ok());
      if (i % 9 == 0) {
        ASSERT_TRUE(sink.Flush().ok());
      }
    }
    ASSERT_TRUE(sink.Close().ok());
  }
  const auto warcs = Files(".warc.gz");
  ASSERT_GT(warcs.size(), 2u) << "the limit should rotate files";
  std::vector<std::string> all;
  for (const fs::path& warc : warcs) {
    const fs::path cdxj = CdxjPathFor(dir_, warc.filename().string());
    ASSERT_TRUE(fs::exists(cdxj)) << cdxj;
    for (const std::string& url : CheckCdxj(cdxj)) all.push_back(url);
  }
  std::sort(all.begin(), all.end());
  std::vector<std::string> expected;
  for (int i = 1; i <= 40; ++i) expected.push_back(Page(i).url());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(all, expected) << "each page indexed once, in the file that holds it";
  // A page without Content-Type has no mime; one with it has the media type.
  bool saw_without = false;
  bool saw_with = false;
  for (const fs::path& cdxj : Files(".cdxj")) {
    for (const std::string& line : Lines(cdxj)) {
      const bool p5 = line.find("/p5 ") != std::string::npos;
      if (p5) saw_without = line.find("\"mime\"") == std::string::npos;
      if (line.find("/p6 ") != std::string::npos) saw_with = line.find("\"mime\":\"text/html\"") != std::string::npos;
    }
  }
  EXPECT_TRUE(saw_without);
  EXPECT_TRUE(saw_with);
}

TEST_F(WarcCdxjTest, AWriterStoppedBeforeItWroteACdxjHasItWrittenByTheNextOneOrByIndex) {
  {
    WarcSink sink(Options(), 1, RealClock::Get(), 0);
    ASSERT_TRUE(sink.Open().ok());
    for (int i = 1; i <= 12; ++i) ASSERT_TRUE(sink.Write(Page(i)).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  const auto cdxjs = Files(".cdxj");
  ASSERT_EQ(cdxjs.size(), 1u);
  const std::vector<std::string> written = Lines(cdxjs[0]);
  ASSERT_EQ(written.size(), 12u);
  // The stop between the last flush and the CDXJ: the file is gone.
  fs::remove(cdxjs[0]);
  {
    WarcSink sink(Options(), 1, RealClock::Get(), 0);
    ASSERT_TRUE(sink.Open().ok());  // writes it again from the index
    EXPECT_EQ(Lines(cdxjs[0]), written);
    ASSERT_TRUE(sink.Write(Page(13)).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  ASSERT_EQ(Files(".cdxj").size(), 2u);
  // `./run index` does the same without a writer, then merges.
  fs::remove(cdxjs[0]);
  CrawlIndexCounts counts;
  const std::string merged = dir_ + "/index.cdxj";
  ASSERT_TRUE(WriteCrawlIndex(dir_, merged, &counts).ok());
  EXPECT_EQ(counts.files.files_written, 1u);
  EXPECT_EQ(counts.inputs, 2u);
  EXPECT_EQ(counts.lines, 13u);
  const std::vector<std::string> all = Lines(merged);
  EXPECT_EQ(all.size(), 13u);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  // Run again: the merged index is not read as an input.
  ASSERT_TRUE(WriteCrawlIndex(dir_, merged, &counts).ok());
  EXPECT_EQ(Lines(merged), all);
}

TEST_F(WarcCdxjTest, IndexLinesFromBeforeCdxjAreCountedNotIndexed) {
  // A sidecar line as zcrawl wrote it before CDXJ, for a file that exists.
  const std::string warc = "z-20261130021757-00000.warc.gz";
  std::ofstream(fs::path(dir_) / warc) << std::string(100, 'x');
  std::ofstream(fs::path(dir_) / "z-index.jsonl")
      << "{\"url\":\"http://a/\",\"file\":\"" << warc << "\",\"offset\":0,\"length\":100}\n";
  CrawlIndexCounts counts;
  ASSERT_TRUE(WriteCrawlIndex(dir_, dir_ + "/index.cdxj", &counts).ok());
  EXPECT_EQ(counts.files.files_without_cdxj_lines, 1u);
  EXPECT_EQ(counts.files.files_written, 0u);
  EXPECT_FALSE(fs::exists(CdxjPathFor(dir_, warc)));
  EXPECT_EQ(counts.lines, 0u);
}

TEST_F(WarcCdxjTest, MergeOfSortedFilesIsSortedAndKeepsEveryLine) {
  const std::string a = dir_ + "/a.cdxj";
  const std::string b = dir_ + "/b.cdxj";
  std::ofstream(a) << "a 1\nc 1\nc 1\ne 1\n";
  std::ofstream(b) << "b 1\nc 1\nd 1\n";
  uint64_t lines = 0;
  ASSERT_TRUE(MergeCdxjFiles({a, b, dir_ + "/missing.cdxj"}, dir_ + "/m", &lines).code() != StatusCode::kOk);
  ASSERT_TRUE(MergeCdxjFiles({a, b}, dir_ + "/m", &lines).ok());
  EXPECT_EQ(lines, 7u);
  EXPECT_EQ(Lines(dir_ + "/m"), (std::vector<std::string>{"a 1", "b 1", "c 1", "c 1", "c 1", "d 1", "e 1"}));
}

}  // namespace
}  // namespace zcrawl::writer

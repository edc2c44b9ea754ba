// Revisit records (writer/warc_sink.h, payload_digest_index.h): a payload
// stored before becomes a revisit naming the first record, in one crawl,
// across a writer restart and from an earlier crawl's CDXJ; never one that
// names a record a failed flush took back. The WARC files are read by the
// independent checker (tests/writer/warc_check.py), which ties every
// revisit to its original's URI, date and payload digest.
#include <openssl/sha.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/encoding.h"
#include "tests/support/file_size_limit.h"
#include "tests/support/test_process.h"
#include "tests/support/warc_checker.h"
#include "writer/warc_file_cdxj.h"
#include "writer/warc_sink.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Sha1Raw(const std::string& data) {
  unsigned char md[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  return std::string(reinterpret_cast<const char*>(md), sizeof md);
}

// A page as our fetchers send it to a WARC sink: with the SHA-1 of its body.
v1::Page PageWithBody(const std::string& url, const std::string& body, int64_t fetched_at_ms) {
  v1::Page page;
  page.set_url(url);
  page.set_dedup_key(url);
  page.set_http_status(200);
  page.set_fetched_at_ms(fetched_at_ms);
  auto* h = page.add_headers();
  h->set_name("Content-Type");
  h->set_value("text/html");
  page.set_body(body);
  page.set_body_length(body.size());
  page.set_body_sha1(Sha1Raw(body));
  return page;
}

class WarcRevisitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("warc-revisit");
    options_.out_dir = dir_;
    options_.warc_prefix = "r";
  }

  json Check() {
    const testing::WarcCheckResult check = testing::RunWarcChecker(dir_);
    EXPECT_EQ(check.exit_code, 0) << check.summary.dump(2);
    return check.summary;
  }

  // The durable WARC bytes of the sink's folder, all files.
  uint64_t WarcBytes() const {
    uint64_t bytes = 0;
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().string().ends_with(".warc.gz")) bytes += fs::file_size(e.path());
    }
    return bytes;
  }

  std::string dir_;
  SinkOptions options_;
};

TEST_F(WarcRevisitTest, ARepeatedPayloadIsARevisitOfTheFirstRecordAndSavesItsBytes) {
  std::string body(20000, '\0');  // random: compression cannot hide a second copy
  uint32_t state = 12345;
  for (char& c : body) c = static_cast<char>((state = state * 1103515245u + 12345u) >> 24);
  {
    WarcSink sink(options_, 1, RealClock::Get(), 0);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/", body, 1796005077000)).ok());
    ASSERT_TRUE(sink.Write(PageWithBody("http://b.test/copy", body, 1796005078000)).ok());  // same window
    ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/other", "different", 1796005079000)).ok());
    ASSERT_TRUE(sink.Flush().ok());
    ASSERT_TRUE(sink.Write(PageWithBody("http://c.test/again", body, 1796005080000)).ok());  // a later window
    ASSERT_TRUE(sink.Close().ok());
    EXPECT_EQ(sink.revisits(), 2u);
    EXPECT_EQ(sink.bytes_saved(), 2 * body.size());
  }
  const json summary = Check();
  EXPECT_EQ(summary["by_type"]["response"], 2);
  EXPECT_EQ(summary["by_type"]["revisit"], 2);
  for (const json& revisit : summary["revisits"]) {
    EXPECT_EQ(revisit["refers_to_uri"], "http://a.test/");
    EXPECT_EQ(revisit["refers_to_date"], FormatWarcDate(1796005077000));
    EXPECT_FALSE(revisit["refers_to"].is_null()) << "the first record's id is known in the same crawl";
    EXPECT_NE(revisit["status_line"].get<std::string>().find("200"), std::string::npos);
  }
  EXPECT_LT(WarcBytes(), body.size() + 8000) << "the repeated 20 KB bodies were not stored again";
  // The CDXJ lists revisits as warcio does: mime warc/revisit.
  std::string all;
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().string().ends_with(".cdxj")) {
      std::ifstream in(e.path());
      all.assign(std::istreambuf_iterator<char>(in), {});
    }
  }
  EXPECT_NE(all.find("\"url\":\"http://b.test/copy\",\"mime\":\"warc/revisit\""), std::string::npos) << all;
}

// A 304 to a conditional request is a server-not-modified revisit; it
// saves the earlier capture's body, whose size the lease carried when known
// (a continuous crawl's), and nothing countable otherwise.
TEST_F(WarcRevisitTest, ANotModifiedAnswerSavesTheEarlierBodysSizeWhenKnown) {
  {
    WarcSink sink(options_, 1, RealClock::Get(), 0);
    ASSERT_TRUE(sink.Open().ok());
    for (const uint64_t earlier_bytes : {uint64_t{4321}, uint64_t{0}}) {
      v1::Page page = PageWithBody("http://a.test/" + std::to_string(earlier_bytes), "", 1796005090000);
      page.set_http_status(304);
      page.mutable_not_modified_since()->set_fetched_at_ms(1796005000000);
      page.mutable_not_modified_since()->set_body_bytes(earlier_bytes);
      ASSERT_TRUE(sink.Write(page).ok());
    }
    ASSERT_TRUE(sink.Close().ok());
    EXPECT_EQ(sink.revisits(), 2u);
    EXPECT_EQ(sink.bytes_saved(), 4321u);
  }
  const json summary = Check();
  EXPECT_EQ(summary["by_type"]["revisit"], 2);
  for (const json& revisit : summary["revisits"]) {
    EXPECT_EQ(revisit["profile"], "http://netpreserve.org/warc/1.1/revisits/server-not-modified");
  }
}

TEST_F(WarcRevisitTest, TheDigestsOutliveTheWriterAndAnEmptyBodyIsNeverARevisit) {
  const std::string body = "<html>the same page</html>";
  {
    WarcSink sink(options_, 1, RealClock::Get(), 0);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/", body, 1796005077000)).ok());
    ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/empty1", "", 1796005077000)).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  {
    WarcSink sink(options_, 1, RealClock::Get(), 0);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/later", body, 1796005090000)).ok());
    ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/empty2", "", 1796005090000)).ok());
    ASSERT_TRUE(sink.Close().ok());
    EXPECT_EQ(sink.revisits(), 1u);
  }
  const json summary = Check();
  EXPECT_EQ(summary["by_type"]["revisit"], 1);
  EXPECT_EQ(summary["revisits"][0]["uri"], "http://a.test/later");
  EXPECT_EQ(summary["by_type"]["response"], 3);
}

TEST_F(WarcRevisitTest, APayloadWhoseFlushFailedIsStoredWholeWhenItComesAgain) {
  const std::string body(5000, 'z');
  WarcSink sink(options_, 0, RealClock::Get(), 0);  // stored blocks: sizes are predictable
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/0", "first", 1796005077000)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  {
    // The original and its copy in one window that cannot be written.
    testing::FileSizeLimit limit(fs::file_size(sink.current_path()) + 1000);
    ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/1", body, 1796005078000)).ok());
    (void)sink.Write(PageWithBody("http://a.test/2", body, 1796005078000));
    EXPECT_FALSE(sink.Flush().ok()) << "the fault was injected";
  }
  EXPECT_EQ(sink.revisits(), 0u);
  // Both come again: the first is stored whole, not a revisit of a record
  // the failed flush took back.
  ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/1", body, 1796005079000)).ok());
  ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/2", body, 1796005079000)).ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(sink.revisits(), 1u);
  const json summary = Check();
  EXPECT_EQ(summary["by_type"]["response"], 2);
  EXPECT_EQ(summary["by_type"]["revisit"], 1);
  EXPECT_EQ(summary["revisits"][0]["refers_to_uri"], "http://a.test/1");
}

TEST_F(WarcRevisitTest, AnEarlierCrawlsIndexTurnsItsPayloadsIntoRevisits) {
  const std::string body = "<html>unchanged since the last crawl</html>";
  // The earlier crawl, indexed as `./run index` does.
  const std::string earlier = testing::MakeTempDir("warc-revisit-earlier");
  {
    SinkOptions options = options_;
    options.out_dir = earlier;
    WarcSink sink(options, 1, RealClock::Get(), 0);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/page", body, 1796005077000)).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  CrawlIndexCounts counts;
  ASSERT_TRUE(WriteCrawlIndex(earlier, earlier + "/index.cdxj", &counts).ok());
  std::ofstream(earlier + "/index.cdxj", std::ios::app) << "not a cdxj line\n";

  options_.dedup_indexes = {earlier + "/index.cdxj"};
  WarcSink sink(options_, 1, RealClock::Get(), 0);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/page", body, 1796009999000)).ok());
  ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/new", "new content", 1796009999000)).ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(sink.revisits(), 1u);
  const json summary = Check();
  EXPECT_EQ(summary["by_type"]["revisit"], 1);
  EXPECT_EQ(summary["by_type"]["response"], 1);
  EXPECT_EQ(summary["revisits"][0]["refers_to_uri"], "http://a.test/page");
  EXPECT_EQ(summary["revisits"][0]["refers_to_date"], "2026-11-30T02:17:57Z");
  EXPECT_TRUE(summary["revisits"][0]["refers_to"].is_null()) << "an earlier crawl's record id is not known";
}

TEST_F(WarcRevisitTest, WithoutDedupEveryPayloadIsStoredWhole) {
  options_.warc_dedup = false;
  WarcSink sink(options_, 1, RealClock::Get(), 0);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/1", "same", 1796005077000)).ok());
  ASSERT_TRUE(sink.Write(PageWithBody("http://a.test/2", "same", 1796005077000)).ok());
  ASSERT_TRUE(sink.Close().ok());
  const json summary = Check();
  EXPECT_EQ(summary["by_type"]["response"], 2);
  EXPECT_FALSE(summary["by_type"].contains("revisit"));
  EXPECT_FALSE(fs::exists(fs::path(dir_) / ("r" + std::string(kDigestIndexSuffix))));
}

}  // namespace
}  // namespace zcrawl::writer

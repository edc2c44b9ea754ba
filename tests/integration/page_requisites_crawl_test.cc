// End-to-end: a WARC crawl fetches what its pages embed (page requisites),
// through the real processes, from a site on 127.0.0.1 and a "CDN" on
// 127.0.0.3: every kind of embed, CSS that imports CSS and references
// fonts and images, srcset candidates, an embed past --max-depth, and the
// CDN's stylesheets two embeds away. Each requisite is stored once, nothing
// beyond --embed-hops or the link scope is fetched, and a files crawl
// (requisites off by default) fetches none of them.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

struct Resource {
  std::string type;
  std::string body;
};

class PageRequisitesCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("requisites");
    cdn_ = std::make_unique<TestHttpServer>("127.0.0.3", [this](const TestRequest& r) { return Serve(cdn_files_, r); });
    far_ = std::make_unique<TestHttpServer>("127.0.0.4", [](const TestRequest&) { return TestResponse{}; });
    site_ = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& r) { return Serve(site_files_, r); });
    cdn_->Start();
    far_->Start();
    site_->Start();
    const std::string cdn = cdn_->origin();
    const std::string far = far_->origin();
    site_->Publish([&] {
      site_files_ = {
          {"/", {"text/html",
                 "<!DOCTYPE html><html><head><title>Home</title>"
                 "<link rel=stylesheet href=/site.css><link rel=icon href=/favicon.ico>"
                 "<link rel=stylesheet href=" + cdn + "/cdn.css>"
                 "<style>@import \"/theme.css\";</style><script src=/app.js></script></head><body>"
                 "<img src=/img/logo.png srcset=\"/img/logo-2x.png 2x, /img/logo-3x.png 3x\">"
                 "<picture><source srcset=\"/img/p.webp\" type=image/webp><img src=/img/p.jpg></picture>"
                 "<video poster=/media/poster.jpg src=/media/v.mp4></video>"
                 "<div style=\"background:url(/img/bg.png)\">x</div><img src=" + cdn + "/cdn.png>"
                 "<a href=/a.html>a</a> <a href=" + cdn + "/page.html>a page on the CDN</a>"
                 "</body></html>"}},
          {"/a.html", {"text/html",
                       "<html><head><title>A</title><link rel=stylesheet href=/site.css></head>"
                       "<body><img src=/img/a.png><a href=/b.html>too deep</a></body></html>"}},
          {"/b.html", {"text/html", "<html><body>beyond --max-depth</body></html>"}},
          {"/site.css", {"text/css", "@import url(sub/imported.css); body{background:url(img/site-bg.png)}"}},
          {"/sub/imported.css", {"text/css", "@font-face{font-family:f;src:url(../fonts/f.woff2) format('woff2')}"}},
          {"/theme.css", {"text/css", "a{background:url(\"img/theme.png\")}"}},
          {"/app.js", {"application/javascript", "var u = '/not-an-embed.png';"}},
      };
      for (const char* image : {"/favicon.ico", "/img/logo.png", "/img/logo-2x.png", "/img/logo-3x.png", "/img/p.webp",
                                "/img/p.jpg", "/img/bg.png", "/img/a.png", "/img/site-bg.png", "/img/theme.png",
                                "/media/poster.jpg"}) {
        site_files_[image] = {"image/png", std::string("PNG of ") + image};
      }
      site_files_["/media/v.mp4"] = {"video/mp4", "MP4"};
      site_files_["/fonts/f.woff2"] = {"font/woff2", "WOFF2"};
    });
    cdn_->Publish([&] {
      cdn_files_ = {
          {"/cdn.css", {"text/css", "@import \"more.css\"; b{background:url(font.woff2)}"}},
          {"/more.css", {"text/css", "c{background:url(too-far.png)} d{background:url(" + far + "/far.png)}"}},
          {"/cdn.png", {"image/png", "CDN PNG"}},
          {"/font.woff2", {"font/woff2", "CDN WOFF2"}},
          {"/too-far.png", {"image/png", "three embeds away"}},
          {"/page.html", {"text/html", "<html><body>a page outside the scope</body></html>"}},
      };
    });
  }

  void TearDown() override {
    site_->Stop();
    cdn_->Stop();
    far_->Stop();
  }

  static TestResponse Serve(const std::map<std::string, Resource>& files, const TestRequest& request) {
    TestResponse response;
    const auto it = files.find(request.target);
    if (it == files.end()) {
      response.status = 404;
      response.body = "not found";
      return response;
    }
    response.headers = {{"Content-Type", it->second.type}};
    response.body = it->second.body;
    return response;
  }

  // Runs `./run crawl` of the site to its end; its exit code must be 0.
  void Crawl(const std::string& format, const std::string& out) {
    TestProcess crawl;
    crawl.Start({SourceDir() + "/run", "crawl", site_->origin() + "/", "--out", out, "--format", format,
                 "--max-depth", "1", "--fetchers", "1", "--threads", "4", "--delay-ms", "0", "--per-host", "4"},
                out + ".log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
    EXPECT_EQ(crawl.Wait(120000), std::optional<int>(0)) << ReadFile(out + ".log");
  }

  // Requests each server got, "/robots.txt" left out.
  static std::map<std::string, uint64_t> Requests(const TestHttpServer& server) {
    auto counts = server.request_counts();
    counts.erase("/robots.txt");
    return counts;
  }

  std::string dir_;
  std::map<std::string, Resource> site_files_;
  std::map<std::string, Resource> cdn_files_;
  std::unique_ptr<TestHttpServer> site_;
  std::unique_ptr<TestHttpServer> cdn_;
  std::unique_ptr<TestHttpServer> far_;
};

TEST_F(PageRequisitesCrawlTest, WarcCrawlStoresEveryRequisiteOnceAndNothingBeyondTheEmbedHops) {
  const std::string out = dir_ + "/warc";
  Crawl("warc", out);

  // The site: both pages and every requisite, each requested once; not the
  // page past --max-depth, nor what a script's text names.
  std::set<std::string> site_expected;
  for (const auto& [path, resource] : site_files_) site_expected.insert(path);
  site_expected.erase("/b.html");
  std::map<std::string, uint64_t> site_requests = Requests(*site_);
  for (const std::string& path : site_expected) EXPECT_EQ(site_requests[path], 1u) << path;
  EXPECT_EQ(site_requests.count("/b.html"), 0u) << "a link past --max-depth";
  EXPECT_EQ(site_requests.count("/not-an-embed.png"), 0u) << "scripts are not read for URLs";
  EXPECT_EQ(site_requests.size(), site_expected.size());

  // The CDN: its stylesheet (1 embed out), what that imports and references
  // (2), not what the import references (3), not the CDN's page (a link
  // outside the scope), and nothing at all from the host three embeds out.
  const std::map<std::string, uint64_t> cdn_requests = Requests(*cdn_);
  EXPECT_EQ(cdn_requests, (std::map<std::string, uint64_t>{
                              {"/cdn.css", 1}, {"/more.css", 1}, {"/cdn.png", 1}, {"/font.woff2", 1}}));
  EXPECT_EQ(far_->total_requests(), 0u);

  // Stored once each (the WARC sink's index), with its own status and
  // content type (the crawl's CDXJ), and the archive passes the
  // independent reader.
  const auto index = ReadIndex(out, "zcrawl-index.jsonl");
  std::map<std::string, std::string> expected_types;  // URL -> mime
  for (const std::string& path : site_expected) expected_types[site_->origin() + path] = site_files_[path].type;
  for (const auto& [path, count] : cdn_requests) expected_types[cdn_->origin() + path] = cdn_files_[path].type;
  for (const auto& [url, type] : expected_types) {
    const auto it = index.find(url);
    ASSERT_NE(it, index.end()) << url << " not stored";
    EXPECT_EQ(it->second.size(), 1u) << url;
  }
  EXPECT_EQ(index.size(), expected_types.size());

  TestProcess check;
  check.Start({"/usr/bin/env", "python3", SourceDir() + "/tests/writer/warc_check.py", "--no-details", out},
              dir_ + "/check.log");
  EXPECT_EQ(check.Wait(60000), std::optional<int>(0)) << ReadFile(dir_ + "/check.log");
  TestProcess cdxj;
  cdxj.Start({SourceDir() + "/run", "index", out, dir_ + "/crawl.cdxj"}, dir_ + "/index.log",
             {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  ASSERT_EQ(cdxj.Wait(60000), std::optional<int>(0)) << ReadFile(dir_ + "/index.log");
  std::map<std::string, std::string> indexed_types;
  std::istringstream lines(ReadFile(dir_ + "/crawl.cdxj"));
  for (std::string line; std::getline(lines, line);) {
    const auto fields = nlohmann::json::parse(line.substr(line.find('{')), nullptr, false);
    ASSERT_FALSE(fields.is_discarded()) << line;
    EXPECT_EQ(fields.value("status", ""), "200") << line;
    indexed_types[fields.value("url", "")] = fields.value("mime", "");
  }
  EXPECT_EQ(indexed_types, expected_types);
}

TEST_F(PageRequisitesCrawlTest, FilesCrawlFetchesNoRequisitesUnlessAsked) {
  Crawl("files", dir_ + "/files");
  EXPECT_EQ(Requests(*site_), (std::map<std::string, uint64_t>{{"/", 1}, {"/a.html", 1}}));
  EXPECT_EQ(Requests(*cdn_).size(), 0u);
}

}  // namespace
}  // namespace zcrawl::testing

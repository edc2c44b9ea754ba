// End-to-end: the real frontier, writer and fetcher processes crawl a
// generated site served on 127.0.0.1, through `./run crawl` and component
// by component.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/support/crawl_output.h"
#include "tests/support/served_site_test.h"
#include "tests/support/gzip_file.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 300;

int64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// The site on 127.0.0.1 plus a "foreign" host on 127.0.0.2 that must never
// be contacted.
class SiteFixture : public ServedSiteTest {
 protected:
  SiteFixture() : ServedSiteTest(kPages, "crawl") {}

  // Every page stored exactly once with the right status, nothing else
  // stored, nothing out of scope requested, every page requested once
  // except at most `max_refetched` (URLs in flight at a fetcher that left
  // are handed to another and fetched again).
  void ExpectCompleteCrawl(size_t max_refetched = 0) {
    ExpectEveryPageStoredOnce(dir_ + "/out");
    auto index = ReadIndex(dir_ + "/out");
    size_t refetched = 0;
    for (const auto& [target, count] : server_->request_counts()) {
      EXPECT_FALSE(site_->IsForbiddenPath(target)) << "fetched out-of-scope path " << target;
      EXPECT_LE(count, 2u) << target;
      if (count > 1) ++refetched;
    }
    EXPECT_LE(refetched, max_refetched) << "pages fetched more than once";
    // A stored page's file holds the body the server sent.
    const std::string sample = server_->origin() + GeneratedSite::PagePath(42);
    ASSERT_TRUE(index.count(sample));
    const std::string body = ReadFile(dir_ + "/out/" + index[sample][0].file);
    EXPECT_NE(body.find("<h1>Page 42</h1>"), std::string::npos);
  }

  std::vector<std::string> FrontierArgs(const std::string& endpoint, int delay_ms) {
    return {BinDir() + "/zcrawl-frontier", "--bind", endpoint, "--delay-ms",
            std::to_string(delay_ms), "--heartbeat-ms", "200", "--liveness", "5",
            "--per-host", "4", server_->origin() + "/"};
  }
  std::vector<std::string> WriterArgs(const std::string& endpoint, const std::string& frontier) {
    return {BinDir() + "/zcrawl-writer", "--bind", endpoint, "--frontier", frontier, "--out",
            dir_ + "/out", "--heartbeat-ms", "200"};
  }
  std::vector<std::string> FetcherArgs(const std::string& frontier, const std::string& writer,
                                       const std::string& parser = "myhtml",
                                       const std::string& io = "multi") {
    return {BinDir() + "/zcrawl-fetcher", "--frontier", frontier, "--writer", writer,
            "--threads", "4", "--heartbeat-ms", "200", "--liveness", "5", "--parser", parser,
            "--io", io};
  }

  // Runs `./run crawl` over the site in `format` to its end; its log.
  // Exit code 0 is expected (a test failure otherwise).
  std::string CrawlInFormat(const std::string& format) {
    TestProcess crawl;
    crawl.Start({SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", dir_ + "/out", "--format",
                 format, "--fetchers", "2", "--threads", "4", "--delay-ms", "0", "--per-host", "4"},
                dir_ + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
    const auto code = crawl.Wait(120000);
    const std::string log = ReadFile(dir_ + "/crawl.log");
    EXPECT_EQ(code, std::optional<int>(0)) << "crawl failed or did not finish; log:\n" << log;
    return log;
  }

  // The count `key` of the writer's summary, written as it exited.
  uint64_t WriterSummaryField(const std::string& key) const {
    const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/out/.zcrawl/writer-summary.json"), nullptr, false);
    if (summary.is_discarded() || !summary.contains(key)) {
      ADD_FAILURE() << "no " << key << " in the writer's summary: " << summary.dump();
      return 0;
    }
    return summary[key].get<uint64_t>();
  }
};

TEST_F(SiteFixture, RunCrawlStoresEveryReachablePageOnceAndExitsPromptly) {
  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", dir_ + "/out",
               "--fetchers", "2", "--threads", "4", "--delay-ms", "0", "--per-host", "4"},
              dir_ + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  auto code = crawl.Wait(120000);
  ASSERT_TRUE(code.has_value()) << "crawl did not finish; log:\n" << ReadFile(dir_ + "/crawl.log");
  const int64_t exited_ms = NowMs();
  EXPECT_EQ(*code, 0) << ReadFile(dir_ + "/crawl.log");
  ExpectCompleteCrawl();
  // Ends promptly once the work is done: no fixed sleeps, no hang.
  EXPECT_LT(exited_ms - server_->last_request_ms(), 5000) << ReadFile(dir_ + "/crawl.log");
  EXPECT_NE(ReadFile(dir_ + "/crawl.log").find("crawl: finished"), std::string::npos);
}

// --scope web follows links to any host; the per-domain budget then bounds
// each site: the foreign host (127.0.0.2, an IP: its own domain), linked
// from every one of the 300 pages, gets at most its budget of page requests.
TEST_F(SiteFixture, WebScopeFollowsOtherHostsWithinTheirDomainBudget) {
  constexpr int kBudget = 10;
  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", dir_ + "/out",
               "--fetchers", "1", "--threads", "4", "--delay-ms", "0", "--per-host", "4",
               "--scope", "web", "--max-pages-per-domain", std::to_string(kBudget)},
              dir_ + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  auto code = crawl.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(dir_ + "/crawl.log");
  EXPECT_EQ(*code, 0) << ReadFile(dir_ + "/crawl.log");
  uint64_t foreign_pages = 0;
  for (const auto& [target, count] : foreign_->request_counts()) {
    if (target != "/robots.txt") foreign_pages += count;
  }
  EXPECT_GT(foreign_pages, 0u) << "links to another host were not followed";
  EXPECT_LE(foreign_pages, static_cast<uint64_t>(kBudget));
  auto index = ReadIndex(dir_ + "/out");
  size_t foreign_stored = 0;
  for (const auto& [url, entries] : index) foreign_stored += url.rfind(foreign_->origin(), 0) == 0;
  EXPECT_EQ(foreign_stored, foreign_pages);
}

TEST_F(SiteFixture, WarcCrawlStoresEveryPageWithBlocksCompressedByTheFetchers) {
  // The writer asks its fetchers to compress the block of each record; the WARC
  // files must hold every page once and pass the independent reader
  // (tests/writer/warc_check.py: digests, lengths, pairs, one record per
  // gzip member).
  const std::string log = CrawlInFormat("warc");
  const size_t expected = site_->ExpectedOk().size() + site_->ExpectedNotFound().size();
  auto index = ReadIndex(dir_ + "/out", "zcrawl-index.jsonl");
  EXPECT_EQ(index.size(), expected);
  for (const auto& [url, entries] : index) EXPECT_EQ(entries.size(), 1u) << url;

  TestProcess check;
  check.Start({"/usr/bin/env", "python3", SourceDir() + "/tests/writer/warc_check.py", "--no-details", dir_ + "/out"},
              dir_ + "/check.log");
  auto checked = check.Wait(60000);
  ASSERT_TRUE(checked.has_value());
  EXPECT_EQ(*checked, 0) << ReadFile(dir_ + "/check.log");
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/check.log"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << ReadFile(dir_ + "/check.log");
  // Every 404 page has the site's one "not found" body: the first is
  // stored, the others are revisits of it (the checker ties each to it).
  const size_t repeats = site_->ExpectedNotFound().size() - 1;
  EXPECT_EQ(summary["by_type"]["response"], expected - repeats);
  EXPECT_EQ(summary["by_type"]["revisit"], repeats);
  EXPECT_EQ(summary["by_type"]["request"], expected);

  // The writer says how many pages came compressed. It asks each fetcher in
  // its first answer, before that fetcher can have fetched anything (a URL
  // takes a round trip to the frontier first), so all of them should.
  EXPECT_EQ(WriterSummaryField("fetcher_warc_blocks"), expected) << log;
  // WARC alone reads no bodies beyond the blocks: they stayed behind.
  EXPECT_EQ(WriterSummaryField("bodies_omitted"), expected) << log;
}

// Lines of a text file, sorted.
std::vector<std::string> SortedLines(const std::string& path) {
  std::vector<std::string> lines;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// The CDXJ beside every WARC file (writer/warc_file_cdxj.h) and the merged
// index of `./run index` agree line for line with what warcio's own indexer
// (the warcio npm package's cdx-index, which ./run test installs into
// build/node) makes of the same WARC files.
TEST_F(SiteFixture, WarcCrawlsCdxjAgreesWithWarciosIndexerLineForLine) {
  const std::string warcio = BinDir() + "/../node/node_modules/warcio/dist/cli.js";
  if (!std::filesystem::exists(warcio)) {
    GTEST_SKIP() << "warcio is not installed at " << warcio << " (./run test installs it: tools/node_tools.sh)";
  }
  CrawlInFormat("warc");
  const std::string out = dir_ + "/out";
  std::string warcs;
  size_t files = 0;
  std::vector<std::string> per_file;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".warc.gz")) continue;
    ++files;
    warcs += " '" + name + "'";
    const std::string cdxj = out + "/" + name.substr(0, name.size() - 8) + ".cdxj";
    ASSERT_TRUE(std::filesystem::exists(cdxj)) << "no CDXJ beside " << name;
    const std::string text = ReadFile(cdxj);
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end())) << cdxj;
    per_file.insert(per_file.end(), lines.begin(), lines.end());
  }
  ASSERT_GT(files, 0u);

  TestProcess index;
  index.Start({SourceDir() + "/run", "index", out, dir_ + "/crawl.cdxj"}, dir_ + "/index.log",
              {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  ASSERT_EQ(index.Wait(60000), std::optional<int>(0)) << ReadFile(dir_ + "/index.log");
  const std::vector<std::string> ours = SortedLines(dir_ + "/crawl.cdxj");
  std::sort(per_file.begin(), per_file.end());
  EXPECT_EQ(ours, per_file) << "the merged index is the per-file ones together";
  EXPECT_EQ(ours.size(), site_->ExpectedOk().size() + site_->ExpectedNotFound().size());

  TestProcess reference;
  reference.Start({"/bin/sh", "-c", "cd '" + out + "' && node '" + warcio + "' cdx-index" + warcs + " > '" + dir_ +
                                        "/warcio.cdxj'"},
                  dir_ + "/warcio.log");
  ASSERT_EQ(reference.Wait(120000), std::optional<int>(0)) << ReadFile(dir_ + "/warcio.log");
  const std::vector<std::string> theirs = SortedLines(dir_ + "/warcio.cdxj");
  ASSERT_EQ(ours.size(), theirs.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    ASSERT_EQ(ours[i], theirs[i]) << "line " << i << " of the sorted indexes";
  }
}

// `--format wacz` leaves OUT/crawl.wacz, and `./run pack` makes one of any
// WARC crawl, that an independent reader (tests/writer/wacz_check.py:
// layout, stored WARCs, every sha256, the digest of the manifest, page
// lists, and every index line pointing at its record) accepts; the same
// reader refuses a copy with one file changed.
TEST_F(SiteFixture, WaczCrawlIsPackedIntoAWaczAnIndependentReaderAccepts) {
  const std::string log = CrawlInFormat("wacz");
  EXPECT_NE(log.find("crawl: packed " + dir_ + "/out/crawl.wacz"), std::string::npos) << log;
  const std::string out = dir_ + "/out";
  const std::string wacz = dir_ + "/again.wacz";
  TestProcess pack;
  pack.Start({SourceDir() + "/run", "pack", out, wacz}, dir_ + "/pack.log",
             {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  ASSERT_EQ(pack.Wait(60000), std::optional<int>(0)) << ReadFile(dir_ + "/pack.log");

  int checks = 0;
  std::string check_log;
  auto check = [&](const std::string& file) {
    check_log = dir_ + "/wacz_check-" + std::to_string(++checks) + ".log";
    TestProcess reader;
    reader.Start({"/usr/bin/env", "python3", SourceDir() + "/tests/writer/wacz_check.py", file}, check_log);
    const auto code = reader.Wait(60000);
    return std::make_pair(code, nlohmann::json::parse(ReadFile(check_log), nullptr, false));
  };
  const size_t stored = site_->ExpectedOk().size() + site_->ExpectedNotFound().size();
  for (const std::string& file : {out + "/crawl.wacz", wacz}) {
    const auto [code, summary] = check(file);
    ASSERT_EQ(code, std::optional<int>(0)) << file << ": " << ReadFile(check_log);
    EXPECT_EQ(summary["index_lines"], stored);
    EXPECT_EQ(summary["pages"]["pages/pages.jsonl"], 1) << "the seed";
    EXPECT_EQ(summary["pages"]["pages/extraPages.jsonl"], site_->ExpectedOk().size() - 1) << summary.dump();
  }

  // One page list changed after packing: its sha256 no longer matches.
  TestProcess tamper;
  tamper.Start({"/usr/bin/env", "python3", "-c",
                "import sys, zipfile\n"
                "src = zipfile.ZipFile(sys.argv[1]); dst = zipfile.ZipFile(sys.argv[2], 'w')\n"
                "for i in src.infolist():\n"
                "    data = src.read(i.filename)\n"
                "    if i.filename == 'pages/pages.jsonl': data += b'{\"url\":\"http://x/\",\"ts\":\"2026-01-01T00:00:00Z\"}\\n'\n"
                "    dst.writestr(i, data)\n"
                "dst.close()\n",
                wacz, dir_ + "/tampered.wacz"},
               dir_ + "/tamper.log");
  ASSERT_EQ(tamper.Wait(60000), std::optional<int>(0)) << ReadFile(dir_ + "/tamper.log");
  const auto [tampered_code, tampered] = check(dir_ + "/tampered.wacz");
  EXPECT_EQ(tampered_code, std::optional<int>(1)) << tampered.dump();
  EXPECT_NE(tampered.dump().find("sha256 of pages/pages.jsonl does not match"), std::string::npos) << tampered.dump();
}

TEST_F(SiteFixture, JsonlCrawlStoresEveryPageWhileTheBodiesStayWithTheFetchers) {
  // JSON lines without --jsonl-body read no bodies, so the writer tells the
  // fetchers to leave them out (WriterWants.omit_body): every page must
  // still be stored once, with its title and links, and the writer counts
  // the bodies' bytes from body_length.
  const std::string log = CrawlInFormat("jsonl");
  std::map<std::string, nlohmann::json> pages;
  const std::string lines = ReadFile(dir_ + "/out/pages.jsonl");
  for (size_t at = 0, end; (end = lines.find('\n', at)) != std::string::npos; at = end + 1) {
    auto page = nlohmann::json::parse(lines.substr(at, end - at), nullptr, false);
    ASSERT_FALSE(page.is_discarded()) << lines.substr(at, end - at);
    EXPECT_TRUE(pages.emplace(page["url"].get<std::string>(), page).second) << "twice: " << page["url"];
  }
  EXPECT_EQ(pages.size(), site_->ExpectedOk().size() + site_->ExpectedNotFound().size());
  const std::string sample = server_->origin() + GeneratedSite::PagePath(42);
  ASSERT_TRUE(pages.count(sample)) << sample;
  EXPECT_EQ(pages[sample]["title"], "Page 42");
  EXPECT_FALSE(pages[sample]["outlinks"].empty());
  EXPECT_FALSE(pages[sample].contains("body"));
  EXPECT_GT(WriterSummaryField("bytes"), 300u * 100) << log;  // the site's pages are > 100 bytes
  // Every page came without its body (asked in the writer's first answer,
  // before any fetch could finish).
  EXPECT_EQ(WriterSummaryField("bodies_omitted"), pages.size()) << log;
}

TEST_F(SiteFixture, FetcherJoiningLateAndOneLeavingEarlyStillCompletesTheCrawl) {
  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  TestProcess frontier, writer, early, late;
  // A small politeness delay stretches the crawl so the fetchers overlap.
  frontier.Start(FrontierArgs(frontier_ep, 5), dir_ + "/frontier.log");
  writer.Start(WriterArgs(writer_ep, frontier_ep), dir_ + "/writer.log");
  early.Start(FetcherArgs(frontier_ep, writer_ep), dir_ + "/early.log");
  ASSERT_TRUE(WaitForRequests(30, 30000)) << ReadFile(dir_ + "/frontier.log");
  // The late fetcher parses with gumbo and fetches with a thread per URL
  // (--io blocking), the early one uses MyHTML on its event loop: the
  // crawl's result must depend on neither.
  late.Start(FetcherArgs(frontier_ep, writer_ep, "gumbo", "blocking"), dir_ + "/late.log");
  ASSERT_TRUE(WaitForRequests(120, 30000));
  early.Signal(SIGTERM);  // leaves early, politely: its leases go back at once
  auto early_code = early.Wait(10000);
  ASSERT_TRUE(early_code.has_value());
  EXPECT_EQ(*early_code, 0);
  EXPECT_LT(server_->total_requests(), static_cast<uint64_t>(kPages)) << "crawl ended too soon to test";

  auto frontier_code = frontier.Wait(120000);
  ASSERT_TRUE(frontier_code.has_value()) << ReadFile(dir_ + "/frontier.log");
  EXPECT_EQ(*frontier_code, 0);
  EXPECT_EQ(late.Wait(10000).value_or(-1), 0) << ReadFile(dir_ + "/late.log");
  EXPECT_EQ(writer.Wait(10000).value_or(-1), 0) << ReadFile(dir_ + "/writer.log");
  // What the leaver had fetched but not reported (its 4 transfers and the
  // pages at the writer) may be fetched again; what it held queued was not.
  ExpectCompleteCrawl(/*max_refetched=*/8);
}

TEST_F(SiteFixture, KilledFetcherLeasesReturnAndTheCrawlCompletes) {
  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  TestProcess frontier, writer, victim, survivor;
  std::vector<std::string> frontier_args = FrontierArgs(frontier_ep, 5);
  frontier_args.insert(frontier_args.end() - 1, {"--summary-file", dir_ + "/summary.json"});
  frontier.Start(frontier_args, dir_ + "/frontier.log");
  writer.Start(WriterArgs(writer_ep, frontier_ep), dir_ + "/writer.log");
  victim.Start(FetcherArgs(frontier_ep, writer_ep), dir_ + "/victim.log");
  survivor.Start(FetcherArgs(frontier_ep, writer_ep), dir_ + "/survivor.log");
  ASSERT_TRUE(WaitForRequests(60, 30000)) << ReadFile(dir_ + "/frontier.log");
  victim.Signal(SIGKILL);  // no goodbye: the frontier must notice the silence
  EXPECT_EQ(victim.Wait(5000).value_or(-1), 128 + SIGKILL);

  auto frontier_code = frontier.Wait(120000);
  ASSERT_TRUE(frontier_code.has_value()) << ReadFile(dir_ + "/frontier.log");
  EXPECT_EQ(*frontier_code, 0);
  EXPECT_EQ(survivor.Wait(10000).value_or(-1), 0);
  EXPECT_EQ(writer.Wait(10000).value_or(-1), 0);
  // The frontier declared the victim lost (its leases went back then).
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << ReadFile(dir_ + "/frontier.log");
  EXPECT_GE(summary.value("peers_lost", 0), 1) << ReadFile(dir_ + "/frontier.log");
  // The victim may have fetched a page whose report it never sent; it is
  // fetched again, so allow a second request for those few, but every page
  // is stored exactly once.
  auto index = ReadIndex(dir_ + "/out");
  for (const auto& url : site_->ExpectedOk()) {
    ASSERT_TRUE(index.count(url)) << "page not stored: " << url;
    EXPECT_EQ(index[url].size(), 1u) << url;
  }
  EXPECT_EQ(foreign_->total_requests(), 0u);
}

}  // namespace
}  // namespace zcrawl::testing

namespace zcrawl::testing {
namespace {

// `./run crawl ORIGIN/` with one fetcher and no delay, with or without
// --sitemaps, to its end; what it stored.
std::map<std::string, std::vector<IndexEntry>> CrawlSitemapSite(const std::string& origin, bool sitemaps) {
  const std::string dir = MakeTempDir("sitemap");
  std::vector<std::string> args = {SourceDir() + "/run", "crawl", origin + "/", "--out", dir + "/out",
                                   "--fetchers", "1", "--delay-ms", "0"};
  if (sitemaps) args.push_back("--sitemaps");
  TestProcess crawl;
  crawl.Start(args, dir + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  EXPECT_EQ(crawl.Wait(60000).value_or(-1), 0) << ReadFile(dir + "/crawl.log");
  return ReadIndex(dir + "/out");
}

// A page reachable only through the sitemap that robots.txt names.
TEST(SitemapCrawlTest, SitemapsFromRobotsTxtAreFollowedOnlyWhenAsked) {
  std::string origin;
  TestHttpServer server("127.0.0.1", [&](const TestRequest& r) {
    TestResponse response;
    if (r.target == "/robots.txt") {
      response.headers.push_back({"Content-Type", "text/plain"});
      response.body = "User-agent: *\nAllow: /\nSitemap: " + origin + "/sitemap.xml\n";
    } else if (r.target == "/sitemap.xml") {
      response.headers.push_back({"Content-Type", "application/xml"});
      response.body = "<?xml version=\"1.0\"?><urlset><url><loc>" + origin +
                      "/hidden.html</loc></url><url><loc>http://127.0.0.2:9/out.html</loc></url></urlset>";
    } else if (r.target == "/" || r.target == "/hidden.html") {
      response.body = "<html><body>page " + r.target + "</body></html>";
    } else {
      response.status = 404;
    }
    return response;
  });
  server.Start();
  server.Publish([&] { origin = server.origin(); });
  for (bool sitemaps : {false, true}) {
    auto index = CrawlSitemapSite(origin, sitemaps);
    EXPECT_EQ(index.count(origin + "/hidden.html"), sitemaps ? 1u : 0u) << "sitemaps=" << sitemaps;
    EXPECT_EQ(index.count(origin + "/sitemap.xml"), sitemaps ? 1u : 0u);
  }
}

// robots.txt names a sitemap index of one plain and one gzipped sitemap,
// the .gz served as nginx serves .xml.gz files (application/gzip, no
// Content-Encoding): every URL of both is crawled.
TEST(SitemapCrawlTest, GzippedSitemapsOfAnIndexAreCrawledLikePlainOnes) {
  std::string origin;
  std::vector<std::string> plain_pages, gzipped_pages;
  for (int i = 0; i < 5; ++i) plain_pages.push_back("/plain/" + std::to_string(i) + ".html");
  for (int i = 0; i < 7; ++i) gzipped_pages.push_back("/zipped/" + std::to_string(i) + ".html");
  auto urlset = [&](const std::vector<std::string>& paths) {
    std::string out = "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">";
    for (const auto& path : paths) out += "<url><loc>" + origin + path + "</loc></url>";
    return out + "</urlset>";
  };
  TestHttpServer server("127.0.0.1", [&](const TestRequest& r) {
    TestResponse response;
    if (r.target == "/robots.txt") {
      response.headers.push_back({"Content-Type", "text/plain"});
      response.body = "User-agent: *\nAllow: /\nSitemap: " + origin + "/sitemap_index.xml\n";
    } else if (r.target == "/sitemap_index.xml") {
      response.headers.push_back({"Content-Type", "application/xml"});
      response.body = "<?xml version=\"1.0\"?><sitemapindex><sitemap><loc>" + origin +
                      "/sm1.xml</loc></sitemap><sitemap><loc>" + origin +
                      "/sm2.xml.gz</loc></sitemap></sitemapindex>";
    } else if (r.target == "/sm1.xml") {
      response.headers.push_back({"Content-Type", "application/xml"});
      response.body = urlset(plain_pages);
    } else if (r.target == "/sm2.xml.gz") {
      response.headers.push_back({"Content-Type", "application/gzip"});
      response.body = GzipFile(urlset(gzipped_pages));
    } else if (r.target == "/" || r.target.ends_with(".html")) {
      response.body = "<html><body>page " + r.target + "</body></html>";
    } else {
      response.status = 404;
    }
    return response;
  });
  server.Start();
  server.Publish([&] { origin = server.origin(); });
  auto index = CrawlSitemapSite(origin, /*sitemaps=*/true);
  for (const auto& paths : {plain_pages, gzipped_pages}) {
    for (const auto& path : paths) {
      ASSERT_EQ(index.count(origin + path), 1u) << "not crawled: " << path;
      EXPECT_EQ(index[origin + path][0].status, 200) << path;
    }
  }
  ASSERT_EQ(index.count(origin + "/sm2.xml.gz"), 1u);
  EXPECT_EQ(index[origin + "/sm2.xml.gz"][0].content_type, "application/gzip");
  EXPECT_EQ(index.size(), 1 + 3 + plain_pages.size() + gzipped_pages.size());  // /, index, 2 sitemaps
}

}  // namespace
}  // namespace zcrawl::testing

namespace zcrawl::testing {
namespace {

// The server counts requests in progress at once: with --per-host 2 the
// crawl never has more than 2 on this host, although 8 workers could.
TEST(PolitenessE2eTest, ConcurrentRequestsPerHostNeverExceedPerHost) {
  std::unique_ptr<GeneratedSite> site;
  TestHttpServer foreign("127.0.0.2", [](const TestRequest&) { return TestResponse{}; });
  foreign.Start();
  TestHttpServer server("127.0.0.1", [&](const TestRequest& r) {
    TestResponse response = site->Serve(r);
    response.delay_ms = 15;  // responses overlap if the crawler lets them
    return response;
  });
  server.Start();
  server.Publish([&] { site = std::make_unique<GeneratedSite>(80, server.origin(), foreign.origin()); });
  const std::string dir = MakeTempDir("per-host");
  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", server.origin() + "/", "--out", dir + "/out",
               "--fetchers", "2", "--threads", "4", "--delay-ms", "0", "--per-host", "2"},
              dir + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  ASSERT_EQ(crawl.Wait(120000).value_or(-1), 0) << ReadFile(dir + "/crawl.log");
  EXPECT_LE(server.peak_in_progress(), 2);
  EXPECT_EQ(server.peak_in_progress(), 2) << "the limit was never reached: the test proves nothing";
  EXPECT_EQ(ReadIndex(dir + "/out").size(), site->ExpectedOk().size() + site->ExpectedNotFound().size());
}

}  // namespace
}  // namespace zcrawl::testing

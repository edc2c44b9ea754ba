// End-to-end tests of PageProcessor with real libcurl against a loopback
// TestHttpServer: what a fetch of each kind of HTTP answer reports, what it
// stores, and what the frontier's CrawlScheduler does with the report.
// Over 500 lines on purpose: one server fixture and one scheduler serve every
// kind of answer (status codes, redirects, robots.txt, encodings, sizes,
// timeouts); split, each file would repeat the fixture.
// Every test runs twice, once per way the fetcher drives libcurl: the
// blocking client (--io blocking) and the event loop (--io multi), which
// must fetch alike.
#include "fetcher/page_processor.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/sha.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "warc/warc_blocks.h"
#include "warc/compressed_warc_blocks.h"
#include "fetcher/charset.h"
#include "fetcher/curl_multi_loop.h"
#include "fetcher/sitemap_links.h"
#include "frontier/scheduler/crawl_scheduler.h"
#include "tests/support/gzip_file.h"
#include "tests/support/gzip_members.h"
#include "tests/support/test_http_server.h"

namespace zcrawl::fetcher {
namespace {

using ::zcrawl::testing::InflateRawDeflate;
using ::zcrawl::testing::TestHttpServer;
using ::zcrawl::testing::TestRequest;
using ::zcrawl::testing::TestResponse;

// gzip (RFC 1952) of `data`, as a server with Content-Encoding: gzip sends it.
std::string Gzip(const std::string& data) { return ::zcrawl::testing::GzipFile(data); }

TestResponse Html(std::string body, int status = 200) {
  TestResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

TestResponse Redirect(int status, std::string location) {
  TestResponse r;
  r.status = status;
  r.headers = {{"Location", std::move(location)}};
  return r;
}

std::vector<std::string> LinkUrls(const google::protobuf::RepeatedPtrField<v1::Link>& links) {
  std::vector<std::string> out;
  for (const auto& link : links) out.push_back(link.url());
  return out;
}

std::vector<bool> NofollowFlags(const google::protobuf::RepeatedPtrField<v1::Link>& links) {
  std::vector<bool> out;
  for (const auto& link : links) out.push_back(link.nofollow());
  return out;
}

// What spdlog's default logger logs at warn and above while this lives.
class CapturedLog {
 public:
  CapturedLog()
      : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64)),
        previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("captured", sink_);
    logger->set_level(spdlog::level::warn);
    spdlog::set_default_logger(std::move(logger));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::string Text() const {
    std::string out;
    for (const std::string& line : sink_->last_formatted()) out += line;
    return out;
  }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> previous_;
};

TestResponse Typed(std::string content_type, std::string body) {
  TestResponse r;
  r.headers = {{"Content-Type", std::move(content_type)}};
  r.body = std::move(body);
  return r;
}

std::string Urlset(const std::vector<std::string>& urls) {
  std::string out = "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
  for (const auto& url : urls) out += "<url><loc>" + url + "</loc></url>\n";
  return out + "</urlset>\n";
}

std::string SitemapIndex(const std::vector<std::string>& sitemaps) {
  std::string out = "<?xml version=\"1.0\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
  for (const auto& url : sitemaps) out += "<sitemap><loc>" + url + "</loc></sitemap>\n";
  return out + "</sitemapindex>\n";
}

// A port on 127.0.0.1 that nothing listens on (bound, then released).
uint16_t UnusedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    throw std::runtime_error("bind failed");
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// Fetches through a CurlMultiLoop and waits for the answer: the event loop
// seen through the blocking client's interface.
class LoopHttpClient final : public HttpClient {
 public:
  explicit LoopHttpClient(const HttpOptions& options) : loop_(options, 8) {
    if (!loop_.Start().ok()) throw std::runtime_error("fetch loop did not start");
  }
  HttpResponse Fetch(const HttpRequest& request) override {
    std::promise<HttpResponse> answer;
    auto future = answer.get_future();
    if (!loop_.Submit(request, [&answer](HttpResponse r) { answer.set_value(std::move(r)); })) {
      throw std::runtime_error("fetch loop refused the request");
    }
    return future.get();
  }

 private:
  CurlMultiLoop loop_;
};

class PageProcessorTest : public ::testing::TestWithParam<std::string> {
 protected:
  PageProcessorTest() {
    // Generous for loopback on a loaded machine, but far below the defaults
    // so a hang fails the test quickly.
    options_.http.connect_timeout_ms = 2000;
    options_.http.total_timeout_ms = 8000;
    frontier::SchedulerOptions so;
    so.politeness.delay_ms = 0;
    so.politeness.delay_factor = 0;  // its answers take what the loaded machine gives, not a server
    so.politeness.per_host = 4;
    so.politeness.obey_robots = false;
    so.leases.retries = 2;
    so.leases.retry_base_ms = 1000;
    scheduler_options_ = so;
  }

  // Answers `path` (path and query as sent) with `response`; 404 otherwise.
  void Route(const std::string& path, TestResponse response) {
    std::lock_guard<std::mutex> lock(mutex_);
    routes_[path] = std::move(response);
  }

  void StartServer() {
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& request) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(request);
      auto it = routes_.find(request.target);
      if (it != routes_.end()) return it->second;
      return Html("<title>nothing here</title>", 404);
    });
    server_->Start();
  }

  std::string At(const std::string& path) const { return server_->origin() + path; }

  // Changes what the writer asks for, as its heartbeat would: whole.
  template <typename Change>
  void Wish(Change change) {
    WriterWishes wishes = writer_wants_.Load();
    change(wishes);
    writer_wants_.Set(wishes);
  }

  PageProcessor& Processor() {
    if (!processor_) {
      std::unique_ptr<HttpClient> http;
      if (GetParam() == "multi") http = std::make_unique<LoopHttpClient>(options_.http);
      else http = MakeCurlHttpClient(options_.http);
      processor_ = std::make_unique<PageProcessor>(options_, std::move(http),
                                                   std::make_shared<HtmlParserPool>([] { return MakeHtmlParser("gumbo"); }),
                                                   RealClock::Get(), &writer_wants_);
    }
    return *processor_;
  }

  FetchOutcome Fetch(const std::string& url, bool robots_only = false) {
    v1::WorkItem item;
    item.set_url(url);
    item.set_lease_id(7);
    item.set_depth(2);
    item.set_attempt(1);
    item.set_robots_only(robots_only);
    return Processor().Process(item, "fetcher-1");
  }

  frontier::CrawlScheduler& Scheduler() {
    if (!scheduler_) scheduler_ = std::make_unique<frontier::CrawlScheduler>(scheduler_options_, clock_);
    return *scheduler_;
  }

  // Admits `url` to the scheduler and leases it: the item a fetcher would get.
  v1::WorkItem LeaseOne(const std::string& url) {
    Scheduler().Enqueue(url, server_->origin(), 1);
    auto items = Scheduler().Lease("fetcher-1", 1);
    if (items.size() != 1) throw std::runtime_error("nothing leased for " + url);
    return items[0];
  }

  // The whole loop for one leased item: fetch it, report to the scheduler.
  frontier::Completion FetchAndComplete(const v1::WorkItem& item, FetchOutcome* out = nullptr) {
    FetchOutcome outcome = Processor().Process(item, "fetcher-1");
    EXPECT_EQ(outcome.report.lease_id(), item.lease_id());
    EXPECT_EQ(outcome.report.url(), item.url());
    frontier::Completion completion = Scheduler().Complete("fetcher-1", outcome.report);
    EXPECT_TRUE(completion.known_lease);
    if (out) *out = std::move(outcome);
    return completion;
  }

  uint64_t FailuresFor(const std::string& reason) {
    auto it = Scheduler().failure_reasons().find(reason);
    return it == Scheduler().failure_reasons().end() ? 0 : it->second;
  }

  std::vector<TestRequest> Requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

  FetcherOptions options_;
  frontier::SchedulerOptions scheduler_options_;
  FakeClock clock_;
  std::mutex mutex_;
  std::map<std::string, TestResponse> routes_;  // guarded by mutex_
  std::vector<TestRequest> requests_;           // guarded by mutex_
  std::unique_ptr<TestHttpServer> server_;
  WriterWantsCell writer_wants_;  // what the writer asked for
  std::unique_ptr<PageProcessor> processor_;
  std::unique_ptr<frontier::CrawlScheduler> scheduler_;
};

// --- Redirects -------------------------------------------------------------

// A redirect is not followed within the fetch, on the same origin either:
// it is stored as the 3xx it is and its target goes to the frontier as a
// link, whose claim fetches the target once however many URLs lead to it.
// Followed here, a page also linked directly was fetched and stored twice
// (issue 51's web bench: 636 of 10,000 pages).
TEST_P(PageProcessorTest, ASameOriginRedirectIsStoredAndItsTargetBecomesALink) {
  Route("/start", Redirect(301, "/middle"));
  StartServer();
  Route("/middle", Html("<title>Landed</title>"));

  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/start")), &outcome);

  const v1::FetchReport& report = outcome.report;
  EXPECT_EQ(report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(report.http_status(), 301u);
  EXPECT_EQ(report.url(), At("/start"));
  EXPECT_EQ(report.final_url(), At("/start"));
  ASSERT_EQ(LinkUrls(report.links()), std::vector<std::string>{At("/middle")});
  EXPECT_EQ(report.links(0).redirect_hops(), 1u);

  ASSERT_TRUE(outcome.page.has_value());
  const v1::Page& page = *outcome.page;
  EXPECT_EQ(page.url(), At("/start"));
  EXPECT_EQ(page.final_url(), At("/start"));
  EXPECT_EQ(page.http_status(), 301u);
  EXPECT_EQ(page.redirects_size(), 0);

  EXPECT_EQ(server_->requests_for("/start"), 1u);
  EXPECT_EQ(server_->requests_for("/middle"), 0u) << "left to the frontier";
  EXPECT_TRUE(completion.follow_links);
  EXPECT_EQ(Scheduler().counts().done, 1u);
}

TEST_P(PageProcessorTest, ARedirectToItselfIsOneRequestAndALinkTheSeenSetDrops) {
  Route("/loop", Redirect(302, "/loop"));
  StartServer();

  FetchOutcome outcome;
  FetchAndComplete(LeaseOne(At("/loop")), &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 302u);
  EXPECT_EQ(LinkUrls(outcome.report.links()), std::vector<std::string>{At("/loop")});
  EXPECT_EQ(server_->requests_for("/loop"), 1u);
}

TEST_P(PageProcessorTest, CrossOriginRedirectIsNotFollowedButBecomesALink) {
  // Like the body Apache sends with a redirect: it links to the target too.
  TestResponse moved = Redirect(301, "http://other.example/landing?q=1#top");
  moved.body = "<title>Moved</title><p>The document has moved "
               "<a href=\"http://other.example/landing?q=1#top\">here</a>.</p>";
  Route("/moved", moved);
  StartServer();

  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/moved")), &outcome);

  const v1::FetchReport& report = outcome.report;
  EXPECT_EQ(report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(report.http_status(), 301u);
  EXPECT_EQ(report.final_url(), At("/moved"));
  // Once, absolute, without the fragment; scope is the frontier's call.
  EXPECT_EQ(LinkUrls(report.links()), std::vector<std::string>{"http://other.example/landing?q=1"});
  EXPECT_EQ(NofollowFlags(report.links()), std::vector<bool>{false});

  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->http_status(), 301u);
  EXPECT_EQ(outcome.page->redirects_size(), 0);
  EXPECT_EQ(outcome.page->title(), "Moved");
  EXPECT_EQ(LinkUrls(outcome.page->links()), LinkUrls(report.links()));
  EXPECT_EQ(server_->total_requests(), 1u);

  EXPECT_TRUE(completion.follow_links);
  EXPECT_EQ(Scheduler().counts().done, 1u);
}

// The redirects taken to reach a URL travel with it (WorkItem.redirect_hops,
// kept by the scheduler from the Link): a chain, within an origin or
// across origins, is bounded by max_redirects (5).
TEST_P(PageProcessorTest, RedirectHopsTravelWithTheTargetAndBoundTheChain) {
  Route("/a", Redirect(302, "/b"));
  Route("/c", Redirect(302, "http://other.example/next"));
  StartServer();

  FetchOutcome first;
  FetchAndComplete(LeaseOne(At("/a")), &first);
  ASSERT_EQ(first.report.links_size(), 1);
  EXPECT_EQ(first.report.links(0).url(), At("/b"));
  EXPECT_EQ(first.report.links(0).redirect_hops(), 1u);
  // The scheduler keeps the count with the URL it admits and leases it so.
  Scheduler().Enqueue(At("/c"), server_->origin(), 2, 0, first.report.links(0).redirect_hops());
  auto items = Scheduler().Lease("fetcher-1", 1);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].redirect_hops(), 1u);
  FetchOutcome second = Processor().Process(items[0], "fetcher-1");
  ASSERT_EQ(second.report.links_size(), 1);
  EXPECT_EQ(second.report.links(0).url(), "http://other.example/next");
  EXPECT_EQ(second.report.links(0).redirect_hops(), 2u);

  // Reached after 4 redirects, /a's answer is the 5th: still a link.
  v1::WorkItem item = items[0];
  item.set_url(At("/a"));
  item.set_redirect_hops(4);
  FetchOutcome at_limit = Processor().Process(item, "fetcher-1");
  EXPECT_EQ(at_limit.report.status(), v1::FETCH_STATUS_OK);
  ASSERT_EQ(at_limit.report.links_size(), 1);
  EXPECT_EQ(at_limit.report.links(0).redirect_hops(), 5u);
  // After 5, a 6th is one too many: the chain ends, nothing stored.
  item.set_redirect_hops(5);
  FetchOutcome over = Processor().Process(item, "fetcher-1");
  EXPECT_EQ(over.report.status(), v1::FETCH_STATUS_REDIRECT_LIMIT);
  EXPECT_EQ(over.report.cause(), "redirect_limit");
  EXPECT_EQ(over.report.error(), "more than 5 redirects");
  EXPECT_EQ(over.report.links_size(), 0);
  EXPECT_FALSE(over.page.has_value());
  EXPECT_EQ(server_->requests_for("/b"), 0u) << "no redirect is followed within a fetch";
}

TEST_P(PageProcessorTest, CrossOriginRedirectToAnotherSchemeIsNotALink) {
  Route("/ftp", Redirect(302, "ftp://files.example/pub/"));
  StartServer();

  FetchOutcome outcome = Fetch(At("/ftp"));

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 302u);
  EXPECT_EQ(outcome.report.links_size(), 0);
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->links_size(), 0);
}

TEST_P(PageProcessorTest, RedirectToARawNonAsciiLocationStillMakesAValidPage) {
  Route("/old", Redirect(301, "/caf\xe9 menu"));
  StartServer();

  FetchOutcome outcome = Fetch(At("/old"));

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 301u);
  ASSERT_TRUE(outcome.page.has_value());
  ASSERT_EQ(outcome.page->links_size(), 1) << "the target, a link";
  EXPECT_TRUE(IsCleanUtf8(outcome.page->links(0).url())) << outcome.page->links(0).url();
  EXPECT_TRUE(IsCleanUtf8(outcome.page->final_url())) << outcome.page->final_url();
  EXPECT_TRUE(IsCleanUtf8(outcome.report.final_url())) << outcome.report.final_url();
  std::string wire;
  ASSERT_TRUE(outcome.page->SerializeToString(&wire));
  v1::Page parsed;
  EXPECT_TRUE(parsed.ParseFromString(wire));
  for (const TestRequest& request : Requests()) {
    EXPECT_TRUE(IsCleanUtf8(request.target)) << "sent as " << request.target;
  }
}

// --- Bodies: encoding and size ----------------------------------------------

TEST_P(PageProcessorTest, PayloadDigestOnlyWhenTheWriterAsksForIt) {
  Route("/page", Html("<title>t</title><a href='/next'>n</a>"));
  StartServer();

  FetchOutcome without = Fetch(At("/page"));
  ASSERT_TRUE(without.page.has_value());
  EXPECT_TRUE(without.page->body_sha1().empty());  // files, jsonl: no sink reads it

  Wish([&](WriterWishes& w) { w.payload_digest = true; });
  FetchOutcome with = Fetch(At("/page"));
  ASSERT_TRUE(with.page.has_value());
  unsigned char md[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(with.page->body().data()), with.page->body().size(), md);
  EXPECT_EQ(with.page->body_sha1(), std::string(reinterpret_cast<const char*>(md), sizeof(md)));
}

// A continuous crawl's lease asks for what revalidates the URL: the
// response's validators and its body's hash (the first 8 bytes of its
// SHA-1), whether or not the writer wants the digest; a 304 keeps the
// earlier body's hash and takes the validators it sent.
TEST_P(PageProcessorTest, AContinuousLeaseReportsWhatRevalidatesTheUrl) {
  TestResponse page = Html("<title>t</title><p>body</p>");
  page.headers.push_back({"ETag", "\"x1\""});
  page.headers.push_back({"Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT"});
  Route("/page", page);
  TestResponse not_modified;
  not_modified.status = 304;
  not_modified.headers.push_back({"ETag", "\"x2\""});
  Route("/same", not_modified);
  StartServer();

  EXPECT_FALSE(Fetch(At("/page")).report.has_captured()) << "only when asked";
  v1::WorkItem item;
  item.set_url(At("/page"));
  item.set_lease_id(8);
  item.set_attempt(1);
  item.set_report_validators(true);
  for (const bool digest_wanted : {false, true}) {
    Wish([&](WriterWishes& w) { w.payload_digest = digest_wanted; });
    FetchOutcome outcome = Processor().Process(item, "fetcher-1");
    ASSERT_TRUE(outcome.page.has_value());
    const v1::Validators& captured = outcome.report.captured();
    EXPECT_EQ(captured.etag(), "\"x1\"");
    EXPECT_EQ(captured.last_modified(), "Tue, 01 Dec 2026 10:00:00 GMT");
    EXPECT_GT(captured.fetched_at_ms(), 0);
    unsigned char md[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char*>(outcome.page->body().data()), outcome.page->body().size(), md);
    uint64_t expected = 0;
    for (int i = 0; i < 8; ++i) expected = (expected << 8) | md[i];
    EXPECT_EQ(captured.body_hash(), expected) << "digest wanted: " << digest_wanted;
    EXPECT_EQ(captured.body_bytes(), outcome.page->body().size());
    EXPECT_EQ(outcome.page->dedup_key(), item.url()) << "a first round is keyed by its URL";
  }

  item.set_url(At("/same"));
  item.mutable_previous()->set_etag("\"x1\"");
  item.mutable_previous()->set_last_modified("Tue, 01 Dec 2026 10:00:00 GMT");
  item.mutable_previous()->set_body_hash(99);
  item.mutable_previous()->set_body_bytes(77);
  item.mutable_previous()->set_fetched_at_ms(1234);
  item.mutable_previous()->set_round_due_ms(555);
  item.mutable_previous()->set_refetch_interval_ms(60000);
  FetchOutcome again = Processor().Process(item, "fetcher-1");
  EXPECT_EQ(again.report.http_status(), 304u);
  EXPECT_EQ(Requests().back().headers.count("if-none-match"), 1u);
  const v1::Validators& captured = again.report.captured();
  EXPECT_EQ(captured.etag(), "\"x2\"");
  EXPECT_EQ(captured.last_modified(), "Tue, 01 Dec 2026 10:00:00 GMT");
  EXPECT_EQ(captured.body_hash(), 99u);
  EXPECT_EQ(captured.body_bytes(), 77u);
  EXPECT_EQ(captured.fetched_at_ms(), 1234) << "the time of the body the next revisit names";
  EXPECT_EQ(captured.round_due_ms(), 0) << "the frontier's own field is not echoed";
  ASSERT_TRUE(again.page.has_value());
  EXPECT_EQ(again.page->dedup_key(), At("/same") + "#round-555");
  EXPECT_EQ(captured.refetch_interval_ms(), 0) << "the frontier's own field is not echoed";
}

TEST_P(PageProcessorTest, GzipEncodedBodyIsDecoded) {
  std::string html = "<title>Zipped</title><p>";
  for (int i = 0; i < 200; ++i) html += "compressible words ";
  html += "</p><a href='/next'>n</a>";
  TestResponse zipped = Html(Gzip(html));
  zipped.headers = {{"Content-Encoding", "gzip"}};
  ASSERT_LT(zipped.body.size(), html.size() / 4);
  Route("/zipped", zipped);
  StartServer();
  Wish([&](WriterWishes& w) { w.payload_digest = true; });  // as a WARC writer asks

  FetchOutcome outcome = Fetch(At("/zipped"));

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 200u);
  EXPECT_EQ(outcome.report.body_bytes(), html.size());
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->body(), html);
  // The payload digest is of the decoded body the page carries.
  unsigned char md[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(html.data()), html.size(), md);
  EXPECT_EQ(outcome.page->body_sha1(), std::string(reinterpret_cast<const char*>(md), sizeof(md)));
  EXPECT_EQ(outcome.page->title(), "Zipped");
  EXPECT_EQ(LinkUrls(outcome.page->links()), std::vector<std::string>{At("/next")});
  const std::vector<TestRequest> requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  ASSERT_EQ(requests[0].headers.count("accept-encoding"), 1u);
  EXPECT_NE(requests[0].headers.at("accept-encoding").find("gzip"), std::string::npos);
}

TEST_P(PageProcessorTest, WarcBlocksAreAddedOnlyWhileTheWriterAsksAndAtItsLevel) {
  std::string html = "<title>Block</title><p>";
  for (int i = 0; i < 500; ++i) html += "compressible words ";
  TestResponse zipped = Html(Gzip(html));
  zipped.headers = {{"Content-Encoding", "gzip"}};
  Route("/page", zipped);
  StartServer();

  FetchOutcome outcome = Fetch(At("/page"));  // not asked (yet)
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_FALSE(outcome.page->has_warc_response());

  size_t level1_size = 0;
  for (uint32_t level : {1u, 9u, 0u}) {
    Wish([&](WriterWishes& w) { w.warc_block_level = level; });
    outcome = Fetch(At("/page"));
    ASSERT_TRUE(outcome.page.has_value());
    if (level == 0) {
      EXPECT_FALSE(outcome.page->has_warc_response());
      continue;
    }
    ASSERT_TRUE(outcome.page->has_warc_response()) << level;
    const v1::WarcBlock& block = outcome.page->warc_response();
    // The block is the head the writer would store and the decoded body.
    const std::string head = WarcHttpResponseHead(*outcome.page, html.size());
    EXPECT_NE(head.find("X-Zcrawl-Orig-Content-Encoding: gzip"), std::string::npos) << head;
    EXPECT_EQ(block.block_length(), head.size() + html.size());
    EXPECT_EQ(InflateRawDeflate(block.deflate()), head + html + "\r\n\r\n");
    EXPECT_LT(block.deflate().size(), html.size() / 4);  // compressed
    EXPECT_EQ(outcome.page->body(), html);               // and the body still sent
    EXPECT_TRUE(IsUsableWarcBlock(block));
    // The request as sent goes compressed too; no links, no metadata block.
    EXPECT_EQ(InflateRawDeflate(outcome.page->warc_request().deflate()),
              WarcRequestBlock(*outcome.page, At("/page")) + "\r\n\r\n");
    EXPECT_NE(WarcRequestBlock(*outcome.page, At("/page")).find("Accept-Encoding"), std::string::npos);
    EXPECT_FALSE(outcome.page->has_warc_metadata());
    // Level 9 (libdeflate) compresses repetitive text harder than 1 (igzip).
    if (level == 1) {
      level1_size = block.deflate().size();
    } else {
      EXPECT_LT(block.deflate().size(), level1_size);
    }
  }
}

TEST_P(PageProcessorTest, BodyIsLeftOutOnlyWhenTheWriterSaysSo) {
  std::string html = "<title>Omit</title><p>";
  for (int i = 0; i < 300; ++i) html += "words ";
  Route("/page", Html(html));
  StartServer();

  // Blocks asked for, bodies still wanted: both go.
  Wish([&](WriterWishes& w) { w.warc_block_level = 1; });
  FetchOutcome outcome = Fetch(At("/page"));
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->body(), html);
  EXPECT_TRUE(outcome.page->has_warc_response());

  // No sink reads bodies and no blocks asked for (jsonl): the body stays
  // behind, its size goes.
  Wish([&](WriterWishes& w) {
    w.warc_block_level = 0;
    w.omit_body = true;
  });
  outcome = Fetch(At("/page"));
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_TRUE(outcome.page->body().empty());
  EXPECT_EQ(outcome.page->body_length(), html.size());
  EXPECT_EQ(outcome.page->title(), "Omit");
  EXPECT_FALSE(outcome.page->has_warc_response());

  // Both (WARC alone): the body travels only inside its block.
  Wish([&](WriterWishes& w) { w.warc_block_level = 1; });
  outcome = Fetch(At("/page"));
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_TRUE(outcome.page->body().empty());
  EXPECT_EQ(outcome.page->body_length(), html.size());
  EXPECT_EQ(outcome.page->title(), "Omit");  // parsed before it left
  ASSERT_TRUE(outcome.page->has_warc_response());
  v1::Page restored = *outcome.page;
  ASSERT_TRUE(RestoreOmittedBody(restored).ok());
  EXPECT_EQ(restored.body(), html);
}

TEST_P(PageProcessorTest, BodyOfExactlyMaxBodyBytesIsKept) {
  options_.http.max_body_bytes = 64 * 1024;
  TestResponse file;
  file.headers = {{"Content-Type", "text/plain"}};
  file.body = std::string(64 * 1024, 'x');
  Route("/exact.txt", file);
  StartServer();

  FetchOutcome outcome = Fetch(At("/exact.txt"));

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->body().size(), 64u * 1024);
  EXPECT_FALSE(outcome.page->body_truncated());
}

TEST_P(PageProcessorTest, BodyOverMaxBodyBytesIsTooLargeAndFinal) {
  options_.http.max_body_bytes = 64 * 1024;
  Route("/big.html", Html("<title>big</title>" + std::string(200 * 1024, 'a')));
  StartServer();

  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/big.html")), &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_TOO_LARGE);
  EXPECT_EQ(outcome.report.error(), "body larger than 65536 bytes");
  EXPECT_EQ(outcome.report.links_size(), 0);
  EXPECT_FALSE(outcome.page.has_value());

  EXPECT_FALSE(completion.follow_links);
  EXPECT_EQ(Scheduler().counts().failed, 1u);
  EXPECT_EQ(Scheduler().counts().retried, 0u);
  EXPECT_EQ(FailuresFor("too_large"), 1u);
  EXPECT_TRUE(Scheduler().Drained());
}

TEST_P(PageProcessorTest, GzipBombIsTooLargeByItsDecodedSize) {
  options_.http.max_body_bytes = 1 << 20;
  const std::string huge(64u << 20, ' ');  // 64 MiB of spaces
  TestResponse bomb = Html(Gzip("<html><body>" + huge));
  bomb.headers = {{"Content-Encoding", "gzip"}};
  ASSERT_LT(bomb.body.size(), 128u * 1024) << "the bomb must be small on the wire";
  Route("/bomb", bomb);
  StartServer();

  const auto started = std::chrono::steady_clock::now();
  FetchOutcome outcome = Fetch(At("/bomb"));
  const auto elapsed = std::chrono::steady_clock::now() - started;

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_TOO_LARGE);
  EXPECT_EQ(outcome.report.error(), "body larger than 1048576 bytes");
  EXPECT_FALSE(outcome.page.has_value());
  EXPECT_LT(elapsed, std::chrono::seconds(3));
}

// --- Broken and slow servers ------------------------------------------------

TEST_P(PageProcessorTest, SlowDripServerHitsTheLowSpeedTimeout) {
  options_.http.low_speed_bytes = 1000;
  options_.http.low_speed_ms = 1000;
  TestResponse slow = Html(std::string(2000, 'z'));
  slow.drip_bytes_per_second = 40;
  Route("/slow", slow);
  StartServer();

  const auto started = std::chrono::steady_clock::now();
  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/slow")), &outcome);
  const auto elapsed = std::chrono::steady_clock::now() - started;

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_TIMEOUT);
  EXPECT_NE(outcome.report.error(), "");
  EXPECT_FALSE(outcome.page.has_value());
  // The whole body would take 50 s; the low-speed limit cuts it after ~1 s.
  EXPECT_LT(elapsed, std::chrono::seconds(4));

  EXPECT_FALSE(completion.follow_links);
  EXPECT_EQ(Scheduler().counts().retried, 1u);
  EXPECT_EQ(Scheduler().counts().waiting, 1u);
  EXPECT_EQ(Scheduler().counts().failed, 0u);
}

TEST_P(PageProcessorTest, ServerClosingMidBodyIsARetryableNetworkError) {
  TestResponse cut = Html("<title>cut</title>" + std::string(10000, 'c'));
  cut.close_mid_body = true;
  Route("/cut", cut);
  StartServer();

  // Attempt 1: network error, retried after the 1 s backoff.
  const v1::WorkItem first = LeaseOne(At("/cut"));
  FetchOutcome outcome;
  FetchAndComplete(first, &outcome);
  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_NETWORK_ERROR);
  EXPECT_EQ(outcome.report.http_status(), 200u) << "the status line did arrive";
  EXPECT_NE(outcome.report.error(), "");
  EXPECT_FALSE(outcome.page.has_value());
  EXPECT_EQ(Scheduler().counts().retried, 1u);
  EXPECT_EQ(Scheduler().counts().failed, 0u);
  EXPECT_TRUE(Scheduler().Lease("fetcher-1", 1).empty()) << "not before the backoff";

  // Attempts 2 and 3 fail the same way; then the URL fails for good.
  clock_.Advance(1000);
  std::vector<v1::WorkItem> second = Scheduler().Lease("fetcher-1", 1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].attempt(), 2u);
  FetchAndComplete(second[0]);
  clock_.Advance(2000);
  std::vector<v1::WorkItem> third = Scheduler().Lease("fetcher-1", 1);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].attempt(), 3u);
  FetchAndComplete(third[0]);

  EXPECT_EQ(server_->requests_for("/cut"), 3u);
  EXPECT_EQ(Scheduler().counts().failed, 1u);
  EXPECT_EQ(FailuresFor("truncated_response"), 1u);  // the fetcher's cause
  EXPECT_TRUE(Scheduler().Drained());
}

TEST_P(PageProcessorTest, LyingContentLengthIsANetworkErrorAndTheClientRecovers) {
  TestResponse liar = Html("<title>short</title>");
  liar.content_length_lies = true;
  Route("/liar", liar);
  Route("/fine", Html("<title>fine</title>"));
  StartServer();

  FetchOutcome outcome = Fetch(At("/liar"));
  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_NETWORK_ERROR);
  EXPECT_NE(outcome.report.error(), "");
  EXPECT_FALSE(outcome.page.has_value());

  // The same client (and its connection cache) still works afterwards.
  FetchOutcome next = Fetch(At("/fine"));
  EXPECT_EQ(next.report.status(), v1::FETCH_STATUS_OK);
  ASSERT_TRUE(next.page.has_value());
  EXPECT_EQ(next.page->title(), "fine");
}

TEST_P(PageProcessorTest, ConnectionRefusedIsARetryableNetworkError) {
  const std::string url = "http://127.0.0.1:" + std::to_string(UnusedPort()) + "/";
  Scheduler().Enqueue(url, url.substr(0, url.size() - 1), 0);
  std::vector<v1::WorkItem> items = Scheduler().Lease("fetcher-1", 1);
  ASSERT_EQ(items.size(), 1u);

  FetchOutcome outcome;
  FetchAndComplete(items[0], &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_NETWORK_ERROR);
  EXPECT_EQ(outcome.report.http_status(), 0u);
  EXPECT_NE(outcome.report.error().find("onnect"), std::string::npos) << outcome.report.error();
  EXPECT_FALSE(outcome.page.has_value());
  EXPECT_EQ(Scheduler().counts().retried, 1u);
  EXPECT_EQ(Scheduler().counts().waiting, 1u);
}

// --- Status codes -------------------------------------------------------------

TEST_P(PageProcessorTest, TooManyRequestsPassesRetryAfterToTheScheduler) {
  TestResponse busy = Html("slow down", 429);
  busy.headers = {{"Retry-After", "2"}};
  Route("/busy", busy);
  StartServer();

  const v1::WorkItem item = LeaseOne(At("/busy"));
  const int64_t completed_at = clock_.NowMs();
  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(item, &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 429u);
  EXPECT_EQ(outcome.report.retry_after_ms(), 2000u);
  EXPECT_FALSE(outcome.page.has_value()) << "retryable answers are not stored";

  EXPECT_FALSE(completion.follow_links);
  EXPECT_EQ(Scheduler().counts().retried, 1u);
  EXPECT_EQ(Scheduler().NextEventMs(), completed_at + 2000) << "Retry-After beats the 1 s backoff";
  clock_.Advance(1999);
  EXPECT_TRUE(Scheduler().Lease("fetcher-1", 1).empty());
  clock_.Advance(1);
  std::vector<v1::WorkItem> again = Scheduler().Lease("fetcher-1", 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].url(), At("/busy"));
  EXPECT_EQ(again[0].attempt(), 2u);
}

TEST_P(PageProcessorTest, AbsurdRetryAfterIsCappedAtAnHour) {
  TestResponse seven_digits = Html("later", 503);
  seven_digits.headers = {{"Retry-After", "5000000"}};
  Route("/seven", seven_digits);
  TestResponse eight_digits = Html("later", 503);
  eight_digits.headers = {{"Retry-After", "50000000"}};
  Route("/eight", eight_digits);
  StartServer();

  EXPECT_EQ(Fetch(At("/seven")).report.retry_after_ms(), 3600u * 1000);
  EXPECT_EQ(Fetch(At("/eight")).report.retry_after_ms(), 3600u * 1000);
}

TEST_P(PageProcessorTest, ServiceUnavailableIsRetriedAndNotStored) {
  Route("/down", Html("<title>maintenance</title><a href='/x'>x</a>", 503));
  StartServer();

  const v1::WorkItem item = LeaseOne(At("/down"));
  const int64_t completed_at = clock_.NowMs();
  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(item, &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 503u);
  EXPECT_EQ(outcome.report.retry_after_ms(), 0u);
  EXPECT_EQ(outcome.report.links_size(), 0);
  EXPECT_FALSE(outcome.page.has_value());

  EXPECT_FALSE(completion.follow_links);
  EXPECT_EQ(Scheduler().counts().retried, 1u);
  EXPECT_EQ(Scheduler().counts().failed, 0u);
  EXPECT_EQ(Scheduler().NextEventMs(), completed_at + 1000);
}

TEST_P(PageProcessorTest, NotFoundIsStoredWithItsStatusAndIsFinal) {
  Route("/gone", Html("<title>Not here</title><a href='/home'>home</a>", 404));
  StartServer();

  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/gone")), &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 404u);
  EXPECT_EQ(LinkUrls(outcome.report.links()), std::vector<std::string>{At("/home")});
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->http_status(), 404u);
  EXPECT_EQ(outcome.page->title(), "Not here");
  EXPECT_EQ(outcome.page->content_type(), "text/html");

  EXPECT_TRUE(completion.follow_links) << "error pages may link on";
  EXPECT_EQ(Scheduler().counts().failed, 1u);
  EXPECT_EQ(Scheduler().counts().retried, 0u);
  EXPECT_EQ(FailuresFor("http_404"), 1u);
  EXPECT_TRUE(Scheduler().Drained());
}

// --- robots.txt ---------------------------------------------------------------

TEST_P(PageProcessorTest, RobotsOnlyItemReturnsTheBodyAndTheSchedulerObeysIt) {
  const std::string robots = "User-agent: *\nDisallow: /private\n";
  TestResponse file;
  file.headers = {{"Content-Type", "text/plain"}};
  file.body = robots;
  Route("/robots.txt", file);
  StartServer();
  Route("/public", Html("<title>public</title>"));
  scheduler_options_.politeness.obey_robots = true;
  Scheduler().Enqueue(At("/private/page"), server_->origin(), 0);
  Scheduler().Enqueue(At("/public"), server_->origin(), 0);

  std::vector<v1::WorkItem> items = Scheduler().Lease("fetcher-1", 4);
  ASSERT_EQ(items.size(), 1u) << "robots.txt first, alone";
  ASSERT_TRUE(items[0].robots_only());
  EXPECT_EQ(items[0].url(), At("/robots.txt"));
  FetchOutcome outcome;
  FetchAndComplete(items[0], &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 200u);
  EXPECT_EQ(outcome.report.robots_txt(), robots);
  EXPECT_EQ(outcome.report.links_size(), 0);
  EXPECT_FALSE(outcome.page.has_value()) << "robots.txt goes to the frontier, not the writer";

  items = Scheduler().Lease("fetcher-1", 4);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].url(), At("/public"));
  EXPECT_EQ(FailuresFor("robots_disallowed"), 1u);
}

TEST_P(PageProcessorTest, MissingRobotsTxtIsNotFoundAndAllowsAll) {
  StartServer();  // every path is 404
  scheduler_options_.politeness.obey_robots = true;
  Scheduler().Enqueue(At("/private/page"), server_->origin(), 0);

  std::vector<v1::WorkItem> items = Scheduler().Lease("fetcher-1", 4);
  ASSERT_EQ(items.size(), 1u);
  ASSERT_TRUE(items[0].robots_only());
  FetchOutcome outcome;
  FetchAndComplete(items[0], &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 404u);
  EXPECT_EQ(outcome.report.robots_txt(), "") << "a 404's body is no robots.txt";
  EXPECT_FALSE(outcome.page.has_value());

  items = Scheduler().Lease("fetcher-1", 4);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].url(), At("/private/page"));
}

TEST_P(PageProcessorTest, RobotsTxtRedirectIsFollowed) {
  Route("/robots.txt", Redirect(301, "/real-robots.txt"));
  StartServer();
  TestResponse file;
  file.headers = {{"Content-Type", "text/plain"}};
  file.body = "User-agent: *\nDisallow: /\n";
  Route("/real-robots.txt", file);

  FetchOutcome outcome = Fetch(At("/robots.txt"), /*robots_only=*/true);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 200u);
  EXPECT_EQ(outcome.report.final_url(), At("/real-robots.txt"));
  EXPECT_EQ(outcome.report.robots_txt(), file.body);
}

// --- HTML content ---------------------------------------------------------------

TEST_P(PageProcessorTest, NofollowComesFromRelAndFromMetaRobots) {
  Route("/rel", Html("<a href='/a' rel='nofollow'>a</a><a href='/b'>b</a>"
                     "<a href='/c' rel='external NoFollow'>c</a>"));
  Route("/meta", Html("<head><meta name='robots' content='noindex, nofollow'></head>"
                      "<a href='/a'>a</a><a href='/b'>b</a>"));
  StartServer();

  FetchOutcome rel = Fetch(At("/rel"));
  EXPECT_EQ(LinkUrls(rel.report.links()), (std::vector<std::string>{At("/a"), At("/b"), At("/c")}));
  EXPECT_EQ(NofollowFlags(rel.report.links()), (std::vector<bool>{true, false, true}));
  ASSERT_TRUE(rel.page.has_value());
  EXPECT_EQ(NofollowFlags(rel.page->links()), (std::vector<bool>{true, false, true}));

  FetchOutcome meta = Fetch(At("/meta"));
  EXPECT_EQ(LinkUrls(meta.report.links()), (std::vector<std::string>{At("/a"), At("/b")}));
  EXPECT_EQ(NofollowFlags(meta.report.links()), (std::vector<bool>{true, true}));
}

TEST_P(PageProcessorTest, IgnoreNofollowClearsTheFlags) {
  options_.ignore_nofollow = true;
  Route("/meta", Html("<meta name='robots' content='nofollow'>"
                      "<a href='/a' rel='nofollow'>a</a><a href='/b'>b</a>"));
  StartServer();

  FetchOutcome outcome = Fetch(At("/meta"));
  EXPECT_EQ(LinkUrls(outcome.report.links()), (std::vector<std::string>{At("/a"), At("/b")}));
  EXPECT_EQ(NofollowFlags(outcome.report.links()), (std::vector<bool>{false, false}));
}

TEST_P(PageProcessorTest, BaseHrefResolvesRelativeLinks) {
  Route("/dir/page.html",
        Html("<head><base href='/other/base/'></head><body>"
             "<a href='x.html'>x</a><a href='../up.html'>up</a><a href='#frag'>self</a>"
             "<a href='//proto.example/p'>p</a><a href='mailto:a@b.example'>m</a>"
             "<a href='x.html#again'>dup</a></body>"));
  StartServer();

  FetchOutcome outcome = Fetch(At("/dir/page.html"));

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(LinkUrls(outcome.report.links()),
            (std::vector<std::string>{At("/other/base/x.html"), At("/other/up.html"),
                                      At("/other/base/"), "http://proto.example/p"}));
}

TEST_P(PageProcessorTest, NonHtmlFileIsStoredButNotParsed) {
  TestResponse pdf;
  pdf.headers = {{"Content-Type", "application/pdf"}};
  static constexpr char kPdf[] = "%PDF-1.4\n<title>x</title><a href='/not-a-link'>\0\xff";
  pdf.body = std::string(kPdf, sizeof kPdf - 1);
  Route("/doc.pdf", pdf);
  StartServer();

  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/doc.pdf")), &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 200u);
  EXPECT_EQ(outcome.report.links_size(), 0);
  EXPECT_EQ(outcome.report.body_bytes(), pdf.body.size());
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->content_type(), "application/pdf");
  EXPECT_EQ(outcome.page->body(), pdf.body);
  EXPECT_EQ(outcome.page->title(), "");
  EXPECT_EQ(outcome.page->text(), "");
  EXPECT_EQ(outcome.page->charset(), "");
  EXPECT_EQ(outcome.page->links_size(), 0);
  EXPECT_EQ(Scheduler().counts().done, 1u);
  EXPECT_TRUE(completion.follow_links);
}

TEST_P(PageProcessorTest, NonHtmlFileIsSkippedWhenNotStored) {
  options_.store_non_html = false;
  TestResponse pdf;
  pdf.headers = {{"Content-Type", "Application/PDF; version=1.4"}};
  pdf.body = "%PDF-1.4\n";
  Route("/doc.pdf", pdf);
  StartServer();

  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/doc.pdf")), &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_SKIPPED_CONTENT);
  EXPECT_EQ(outcome.report.http_status(), 200u);
  EXPECT_EQ(outcome.report.error(), "content type application/pdf");
  EXPECT_FALSE(outcome.page.has_value());
  EXPECT_FALSE(completion.follow_links);
  EXPECT_EQ(FailuresFor("skipped_content"), 1u);
  EXPECT_EQ(Scheduler().counts().retried, 0u);
}

// A redirect is no content to skip: its target must reach the frontier,
// whatever the type of the short body servers send with it.
TEST_P(PageProcessorTest, ARedirectIsKeptWhenNonHtmlIsSkipped) {
  options_.store_non_html = false;
  TestResponse moved = Redirect(301, "/elsewhere");
  moved.headers.push_back({"Content-Type", "text/plain"});
  moved.body = "Moved";
  Route("/old", moved);
  StartServer();

  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/old")), &outcome);

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(outcome.report.http_status(), 301u);
  EXPECT_EQ(LinkUrls(outcome.report.links()), std::vector<std::string>{At("/elsewhere")});
  EXPECT_TRUE(outcome.page.has_value());
  EXPECT_TRUE(completion.follow_links);
}

// --- Sitemaps ----------------------------------------------------------------

// sm2.xml.gz is served as nginx serves .xml.gz files: application/gzip, no
// Content-Encoding, so the body arrives compressed. The index is read both
// plain and gzipped (application/x-gzip, then as octet-stream: the magic
// bytes decide, not the type).
TEST_P(PageProcessorTest, SitemapIndexOfAPlainAndAGzippedSitemapYieldsTheUrlsOfBoth) {
  StartServer();
  const std::vector<std::string> first = {At("/a1.html"), At("/a2.html")};
  const std::vector<std::string> second = {At("/b1.html"), At("/b2.html"), At("/b3.html")};
  const std::string index = SitemapIndex({At("/sm1.xml"), At("/sm2.xml.gz")});
  const std::string sm2 = Gzip(Urlset(second));
  Route("/sitemap_index.xml", Typed("application/xml", index));
  Route("/sitemap_index.xml.gz", Typed("application/x-gzip", Gzip(index)));
  Route("/sitemap_index.bin", Typed("application/octet-stream", Gzip(index)));
  Route("/sm1.xml", Typed("application/xml", Urlset(first)));
  Route("/sm2.xml.gz", Typed("application/gzip", sm2));
  const std::set<std::string> sitemaps = {At("/sitemap_index.xml"), At("/sitemap_index.xml.gz"),
                                          At("/sitemap_index.bin"), At("/sm1.xml"), At("/sm2.xml.gz")};
  std::set<std::string> expected(first.begin(), first.end());
  expected.insert(second.begin(), second.end());

  for (const char* start : {"/sitemap_index.xml", "/sitemap_index.xml.gz", "/sitemap_index.bin"}) {
    std::vector<std::string> pending = {At(start)};
    std::set<std::string> pages;
    while (!pending.empty()) {
      const std::string url = pending.back();
      pending.pop_back();
      if (!sitemaps.count(url)) {
        pages.insert(url);
        continue;
      }
      FetchOutcome outcome;
      const frontier::Completion completion = FetchAndComplete(LeaseOne(url), &outcome);
      ASSERT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK) << url << " " << outcome.report.error();
      EXPECT_TRUE(completion.follow_links) << url;
      EXPECT_FALSE(outcome.sitemap_cut);
      EXPECT_FALSE(outcome.sitemap_gzip_error);
      ASSERT_TRUE(outcome.page.has_value()) << url;
      if (url == At("/sm2.xml.gz")) {
        // Stored as served: the gzip file itself.
        EXPECT_EQ(outcome.page->content_type(), "application/gzip");
        EXPECT_EQ(outcome.page->body(), sm2);
        EXPECT_EQ(LinkUrls(outcome.report.links()), second);
      }
      for (const auto& link : outcome.report.links()) pending.push_back(link.url());
    }
    EXPECT_EQ(pages, expected) << "from " << start;
  }
  EXPECT_EQ(Scheduler().counts().failed, 0u);
}

// Plain and gzipped alike: past 50,000 URLs the rest are cut, counted and
// logged with the sitemap's URL.
TEST_P(PageProcessorTest, SitemapOfMoreThan50000UrlsIsCutCountedAndLogged) {
  std::vector<std::string> urls;
  for (int i = 0; i < 50003; ++i) urls.push_back("http://127.0.0.1:1/p/" + std::to_string(i));
  const std::string plain = Urlset(urls);
  Route("/big.xml", Typed("application/xml", plain));
  Route("/big.xml.gz", Typed("application/gzip", Gzip(plain)));
  StartServer();
  const std::vector<std::string> kept(urls.begin(), urls.begin() + 50000);

  for (const std::string path : {"/big.xml", "/big.xml.gz"}) {
    CapturedLog log;
    FetchOutcome outcome = Fetch(At(path));
    EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK) << path;
    EXPECT_EQ(LinkUrls(outcome.report.links()), kept) << path;
    EXPECT_TRUE(outcome.sitemap_cut) << path;
    const std::string text = log.Text();
    EXPECT_NE(text.find("sitemap cut"), std::string::npos) << text;
    EXPECT_NE(text.find("url=" + At(path) + " "), std::string::npos) << text;
    EXPECT_NE(text.find("urls_kept=50000 urls_cut=3 "), std::string::npos) << text;
  }
}

TEST_P(PageProcessorTest, GzippedSitemapBombIsCutAt50MiBCountedAndLogged) {
  StartServer();
  const std::string plain = "<urlset><url><loc>" + At("/first") + "</loc></url>" +
                            std::string(60u << 20, ' ') + "<url><loc>http://127.0.0.1:1/after</loc></url></urlset>";
  TestResponse bomb = Typed("application/gzip", Gzip(plain));
  ASSERT_LT(bomb.body.size(), 256u * 1024) << "the bomb must be small on the wire";
  Route("/bomb.xml.gz", bomb);

  CapturedLog log;
  FetchOutcome outcome = Fetch(At("/bomb.xml.gz"));

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(LinkUrls(outcome.report.links()), std::vector<std::string>{At("/first")});
  EXPECT_TRUE(outcome.sitemap_cut);
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->body(), bomb.body);
  const std::string text = log.Text();
  EXPECT_NE(text.find("url=" + At("/bomb.xml.gz") + " "), std::string::npos) << text;
  EXPECT_NE(text.find("bytes_read=52428800 size_cut=true bytes_cut=" +
                      std::to_string(plain.size() - kMaxSitemapBytes) + " "),
            std::string::npos)
      << text;
}

TEST_P(PageProcessorTest, CorruptGzippedSitemapIsStoredAsSentWithoutUrlsAndLogged) {
  StartServer();
  std::vector<std::string> urls;
  for (int i = 0; i < 2000; ++i) urls.push_back(At("/p/" + std::to_string(i)));
  const std::string gz = Gzip(Urlset(urls));
  Route("/broken.xml.gz", Typed("application/gzip", gz.substr(0, gz.size() / 2)));

  CapturedLog log;
  FetchOutcome outcome;
  const frontier::Completion completion = FetchAndComplete(LeaseOne(At("/broken.xml.gz")), &outcome);

  // Stored as the server sent it (an archive keeps what was served), with
  // no URLs taken from it; the error is logged and counted.
  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->body(), gz.substr(0, gz.size() / 2));
  EXPECT_EQ(outcome.page->links_size(), 0);
  EXPECT_EQ(outcome.report.links_size(), 0);
  EXPECT_TRUE(outcome.sitemap_gzip_error);
  EXPECT_EQ(Scheduler().counts().done, 1u);
  EXPECT_EQ(Scheduler().counts().failed, 0u);
  EXPECT_EQ(Scheduler().counts().retried, 0u);
  (void)completion;
  const std::string text = log.Text();
  EXPECT_NE(text.find("corrupt gzip url=" + At("/broken.xml.gz") + " sitemap=true error=gzip data ends early"),
            std::string::npos) << text;
}

TEST_P(PageProcessorTest, InvalidUtf8AndNulBytesGiveValidUtf8Text) {
  static constexpr char kBody[] =
      "<title>bad \xff\xfe title\0!</title><p>caf\xc3 ok \0 end \xed\xa0\x80</p>"
      "<a href='/next'>n\0n</a>";
  const std::string body(kBody, sizeof kBody - 1);
  Route("/bad", Html(body));
  StartServer();

  FetchOutcome outcome = Fetch(At("/bad"));

  EXPECT_EQ(outcome.report.status(), v1::FETCH_STATUS_OK);
  ASSERT_TRUE(outcome.page.has_value());
  const v1::Page& page = *outcome.page;
  EXPECT_EQ(page.body(), body) << "the stored body keeps the bytes as sent";
  EXPECT_EQ(page.charset(), "UTF-8");
  EXPECT_TRUE(IsCleanUtf8(page.title())) << page.title();
  EXPECT_TRUE(IsCleanUtf8(page.text())) << page.text();
  EXPECT_NE(page.title().find("bad \xEF\xBF\xBD"), std::string::npos) << page.title();
  EXPECT_NE(page.text().find("ok"), std::string::npos) << page.text();
  EXPECT_NE(page.text().find("end"), std::string::npos) << page.text();
  EXPECT_EQ(LinkUrls(page.links()), std::vector<std::string>{At("/next")});
  // The writer must be able to read what the fetcher sends.
  std::string wire;
  ASSERT_TRUE(page.SerializeToString(&wire));
  v1::Page parsed;
  EXPECT_TRUE(parsed.ParseFromString(wire));
}

TEST_P(PageProcessorTest, NonUtf8HeaderValuesStillMakeAValidPage) {
  TestResponse response = Html("<title>t</title>");
  response.headers = {{"X-Note", "caf\xe9 cr\xe8me"}, {"Content-Type", "text/html"}};
  Route("/latin1-header", response);
  StartServer();

  FetchOutcome outcome = Fetch(At("/latin1-header"));

  ASSERT_TRUE(outcome.page.has_value());
  std::string note;
  for (const v1::Header& header : outcome.page->headers()) {
    EXPECT_TRUE(IsCleanUtf8(header.name())) << header.name();
    EXPECT_TRUE(IsCleanUtf8(header.value())) << header.value();
    if (header.name() == "X-Note") note = header.value();
  }
  EXPECT_NE(note.find("caf"), std::string::npos);
  std::string wire;
  ASSERT_TRUE(outcome.page->SerializeToString(&wire));
  v1::Page parsed;
  EXPECT_TRUE(parsed.ParseFromString(wire)) << "a proto3 string field must hold UTF-8";
}

TEST_P(PageProcessorTest, Windows1252DeclaredByMetaIsDecodedToUtf8) {
  TestResponse response;
  response.headers = {{"Content-Type", "text/html"}};  // no charset parameter
  response.body =
      "<html><head><meta charset=\"windows-1252\"><title>Caf\xe9 \x93quoted\x94</title></head>"
      "<body><p>\x80 5 \x96 na\xefve</p></body></html>";
  Route("/cp1252", response);
  StartServer();

  FetchOutcome outcome = Fetch(At("/cp1252"));

  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->charset(), "windows-1252");
  EXPECT_EQ(outcome.page->title(), "Caf\xC3\xA9 \xE2\x80\x9Cquoted\xE2\x80\x9D");
  EXPECT_EQ(outcome.page->text(), "\xE2\x82\xAC 5 \xE2\x80\x93 na\xC3\xAFve");
  EXPECT_EQ(outcome.page->body(), response.body) << "the body is stored as sent";
}

TEST_P(PageProcessorTest, CharsetFromTheContentTypeHeaderIsUsed) {
  TestResponse response;
  response.headers = {{"Content-Type", "text/html; charset=windows-1251"}};
  response.body = "<title>\xcf\xf0\xe8\xe2\xe5\xf2</title><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>";
  Route("/cp1251", response);
  StartServer();

  FetchOutcome outcome = Fetch(At("/cp1251"));

  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->charset(), "windows-1251");
  EXPECT_EQ(outcome.page->title(), "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82");
  EXPECT_EQ(outcome.page->text(), outcome.page->title());
  const std::vector<v1::Header> headers(outcome.page->headers().begin(),
                                        outcome.page->headers().end());
  EXPECT_EQ(FindHeader(headers, "content-type"), "text/html; charset=windows-1251")
      << "headers are stored whole";
}

TEST_P(PageProcessorTest, MetaCharsetIsUsedWhenTheHeaderHasNone) {
  TestResponse response;
  response.headers = {{"Content-Type", "text/html"}};
  // "Привет" in windows-1251; read as windows-1252 it would be "Ïðèâåò".
  response.body = "<meta http-equiv='Content-Type' content='text/html; charset=windows-1251'>"
                  "<title>\xcf\xf0\xe8\xe2\xe5\xf2</title>";
  Route("/cp1251", response);
  StartServer();

  FetchOutcome outcome = Fetch(At("/cp1251"));

  ASSERT_TRUE(outcome.page.has_value());
  EXPECT_EQ(outcome.page->charset(), "windows-1251");
  EXPECT_EQ(outcome.page->title(), "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82");
}

// --- What the page records about the exchange -------------------------------------

TEST_P(PageProcessorTest, PageRecordsTheExchange) {
  Route("/p?x=1", Html("<title>p</title>"));
  StartServer();

  FetchOutcome outcome = Fetch(At("/p?x=1"));

  ASSERT_TRUE(outcome.page.has_value());
  const v1::Page& page = *outcome.page;
  EXPECT_EQ(page.page_id(), "fetcher-1/7");
  EXPECT_EQ(page.depth(), 2u);
  EXPECT_EQ(page.ip_address(), "127.0.0.1");
  EXPECT_EQ(page.http_version(), "HTTP/1.1");
  EXPECT_EQ(page.content_type(), "text/html");
  EXPECT_EQ(page.charset(), "UTF-8");
  EXPECT_GT(page.fetched_at_ms(), 0);
  EXPECT_GT(page.timings().total_us(), 0u);
  const std::vector<v1::Header> headers(page.headers().begin(), page.headers().end());
  EXPECT_EQ(FindHeader(headers, "content-length"), "16");
  // The request as sent, for WARC request records.
  EXPECT_TRUE(page.request_headers().starts_with("GET /p?x=1 HTTP/1.1\r\n")) << page.request_headers();
  EXPECT_NE(page.request_headers().find("User-Agent: " + options_.http.user_agent + "\r\n"),
            std::string::npos)
      << page.request_headers();
  EXPECT_TRUE(page.request_headers().ends_with("\r\n\r\n")) << page.request_headers();
}

INSTANTIATE_TEST_SUITE_P(Io, PageProcessorTest, ::testing::Values("blocking", "multi"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace zcrawl::fetcher

// A slow server is asked less often (issue 49, origin_pace.h): one host
// that takes 200 ms to answer every request, crawled with --delay-ms 0
// --per-host 1, so only the response-time rule spaces its requests. With
// the default --delay-factor 2 the server sees its request starts about
// 2 x 200 ms apart; with --delay-factor 0, back to back (~200 ms). Judged
// by when the server saw each request arrive.
//
// The margins, and why they hold on a loaded machine. The frontier spaces
// lease times: lease(i+1) >= lease(i) + 2 x fetch_ms(i), and fetch_ms (the
// fetcher's, from handing the request to libcurl to its answer) includes
// the server's 200 ms. A request reaches the server some dispatch time d
// after its lease (broker, ZeroMQ, a fetcher thread, the socket), so one
// gap the server sees may be short by d(i): hence the median, not the
// least gap, must be near 400 ms. Over the whole crawl the d's cancel
// (the sum of the gaps is last start - first start, short by the first
// request's d only), hence a mean of at least 380 ms over 20 gaps, which
// tolerates a first dispatch of up to 400 ms.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "tests/support/crawl_output.h"
#include "tests/support/request_log.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kAnswerMs = 200;
constexpr int kLinkedPages = 19;  // with the home page, 20 pages: 20 gaps after robots.txt

struct RequestGaps {
  std::vector<int64_t> ms;  // between consecutive request starts
  int64_t Median() const {
    std::vector<int64_t> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    return sorted.empty() ? 0 : sorted[sorted.size() / 2];
  }
  double Mean() const {
    return ms.empty() ? 0 : static_cast<double>(std::accumulate(ms.begin(), ms.end(), int64_t{0})) / ms.size();
  }
  std::string Describe() const {
    std::string out = "gaps (ms):";
    for (int64_t gap : ms) out += " " + std::to_string(gap);
    return out;
  }
};

// Serves a 20-page site answering after kAnswerMs, crawls it with `extra`
// flags, and returns the gaps between the request starts it saw.
RequestGaps CrawlSlowSite(const std::string& name, const std::vector<std::string>& extra) {
  RequestLog log;
  TestHttpServer server("127.0.0.1", [&log](const TestRequest& request) {
    log.Add({request.Header("host"), request.target, RequestLog::NowMs(), 0});
    TestResponse response;
    response.delay_ms = kAnswerMs;
    response.headers.push_back({"Content-Type", "text/html"});
    if (request.target == "/") {
      for (int p = 1; p <= kLinkedPages; ++p) response.body += "<a href=/p" + std::to_string(p) + ">page</a>";
    } else if (request.target == "/robots.txt") {
      response.status = 404;  // allow all; answered as slowly as the rest
    } else {
      response.body = "<p>leaf</p>";
    }
    return response;
  });
  server.Start();
  const std::string dir = MakeTempDir("slow_server_e2e_" + name);
  std::vector<std::string> args = {SourceDir() + "/run", "crawl", server.origin() + "/", "--out", dir + "/out",
                                   "--fetchers", "1", "--threads", "4", "--delay-ms", "0", "--per-host", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  TestProcess crawl;
  crawl.Start(args, dir + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  EXPECT_EQ(crawl.Wait(120000).value_or(-1), 0) << ReadFile(dir + "/crawl.log");
  server.Stop();

  EXPECT_EQ(ReadIndex(dir + "/out").size(), static_cast<size_t>(1 + kLinkedPages)) << name;
  std::vector<int64_t> starts;
  for (const LoggedRequest& r : log.Entries()) starts.push_back(r.start_ms);
  EXPECT_EQ(starts.size(), static_cast<size_t>(2 + kLinkedPages)) << name << ": robots.txt and every page, once";
  std::sort(starts.begin(), starts.end());
  RequestGaps gaps;
  for (size_t i = 1; i < starts.size(); ++i) gaps.ms.push_back(starts[i] - starts[i - 1]);
  return gaps;
}

TEST(SlowServerE2eTest, RequestsAreSpacedByTheFactorTimesTheResponseTime) {
  const RequestGaps paced = CrawlSlowSite("factor2", {});  // --delay-factor 2 is the default
  EXPECT_GE(paced.Mean(), 2 * kAnswerMs - 20) << paced.Describe();
  EXPECT_GE(paced.Median(), 2 * kAnswerMs - 20) << paced.Describe();
  // Not much more either: fetch_ms exceeds 200 ms by the fetcher's own
  // overhead only.
  EXPECT_LT(paced.Median(), 3 * kAnswerMs) << paced.Describe();

  // The same crawl without the rule: each request starts once the one
  // before is answered, stored and reported.
  const RequestGaps back_to_back = CrawlSlowSite("factor0", {"--delay-factor", "0"});
  EXPECT_GE(back_to_back.Median(), kAnswerMs) << back_to_back.Describe();
  EXPECT_LT(back_to_back.Median(), 2 * kAnswerMs - 80) << back_to_back.Describe();
}

}  // namespace
}  // namespace zcrawl::testing

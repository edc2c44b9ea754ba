// A site that rate-limits, crawled as a user in a hurry would (--delay-ms 0
// --per-host 8): the frontier's back-off (origin_backoff.h) must yield to
// it. Judged by what the servers saw: every page stored, and few of their
// answers 429.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "tests/support/crawl_output.h"
#include "tests/support/generated_site.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

// What nginx's `limit_req rate=20r/s burst=20 nodelay` with a 429 does: a
// bucket of 20 requests refilled at 20 a second; a request that finds it
// empty is answered 429 with Retry-After: 2.
class RateLimiter {
 public:
  bool Admit() {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    tokens_ = std::min(kBurst, tokens_ + kPerSecond * std::chrono::duration<double>(now - last_).count());
    last_ = now;
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

 private:
  static constexpr double kPerSecond = 20;
  static constexpr double kBurst = 20;
  std::mutex mutex_;
  double tokens_ = kBurst;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

struct LimitedHost {
  explicit LimitedHost(const std::string& address)
      : server(address, [this](const TestRequest& request) {
          if (!limiter.Admit()) {
            std::lock_guard<std::mutex> lock(mutex);
            ++too_many;
            TestResponse busy;
            busy.status = 429;
            busy.headers = {{"Retry-After", "2"}};
            busy.body = "slow down";
            return busy;
          }
          return site->Serve(request);
        }) {}
  uint64_t TooMany() {
    std::lock_guard<std::mutex> lock(mutex);
    return too_many;
  }
  RateLimiter limiter;
  std::unique_ptr<GeneratedSite> site;
  std::mutex mutex;
  uint64_t too_many = 0;
  TestHttpServer server;
};

TEST(PushbackE2eTest, ARateLimitedSiteIsCrawledWholeWithFewRequestsRefused) {
  constexpr int kPages = 300;
  TestHttpServer foreign("127.0.0.2", [](const TestRequest&) { return TestResponse{}; });
  foreign.Start();
  LimitedHost a("127.0.0.1"), b("127.0.0.3");
  for (LimitedHost* host : {&a, &b}) {
    host->server.Start();
    host->server.Publish([&] { host->site = std::make_unique<GeneratedSite>(kPages, host->server.origin(), foreign.origin()); });
  }
  const std::string dir = MakeTempDir("pushback_e2e");
  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", a.server.origin() + "/", b.server.origin() + "/", "--out",
               dir + "/out", "--fetchers", "1", "--threads", "16", "--delay-ms", "0", "--per-host", "8"},
              dir + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  ASSERT_EQ(crawl.Wait(180000).value_or(-1), 0) << ReadFile(dir + "/crawl.log");

  const auto index = ReadIndex(dir + "/out");
  for (LimitedHost* host : {&a, &b}) {
    const uint64_t requests = host->server.total_requests();
    const uint64_t refused = host->TooMany();
    EXPECT_GT(refused, 0u) << host->server.origin() << ": the limit never bit, the test proves nothing";
    EXPECT_LE(refused * 20, requests) << host->server.origin() << ": " << refused << " of " << requests
                                      << " requests answered 429 (at most 5%)";
    for (const std::string& url : host->site->ExpectedOk()) EXPECT_EQ(index.count(url), 1u) << url;
  }
  EXPECT_EQ(index.size(), a.site->ExpectedOk().size() + a.site->ExpectedNotFound().size() +
                              b.site->ExpectedOk().size() + b.site->ExpectedNotFound().size());
  const auto summary = nlohmann::json::parse(ReadFile(dir + "/out/.zcrawl/summary.json"), nullptr, false);
  ASSERT_TRUE(summary.is_object());
  EXPECT_GE(summary["pushbacks"].get<int>(), 2) << "each host pushed the crawl back";
  for (const auto& [reason, count] : summary["failure_reasons"].items()) {
    EXPECT_TRUE(reason == "http_404" || reason == "robots_disallowed") << reason << " x" << count;
  }
}

}  // namespace
}  // namespace zcrawl::testing

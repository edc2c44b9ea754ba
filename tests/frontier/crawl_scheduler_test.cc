#include "frontier/scheduler/crawl_scheduler.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/frontier/scheduler_test_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

// Every scheduling test runs twice: with the queues all in RAM, and
// disk-backed as in the frontier (a UrlStore, a head of one URL per origin
// and at most two URLs in RAM when enqueueing), so the politeness and order
// rules are checked against the queues the frontier really uses.
class CrawlSchedulerTest : public ::testing::TestWithParam<bool> {
 protected:
  bool disk_backed() const { return GetParam(); }

  CrawlScheduler Make(int64_t delay_ms = 0, uint32_t per_host = 2, bool robots = false) {
    SchedulerOptions o;
    o.politeness.delay_ms = delay_ms;
    o.politeness.per_host = per_host;
    o.politeness.obey_robots = robots;
    o.leases.lease_ms = 10000;
    o.leases.retries = 2;
    o.leases.retry_base_ms = 1000;
    if (disk_backed() && !store_) {
      UrlStoreOptions store_options;
      store_options.dir = zcrawl::testing::MakeTempDir("scheduler_queues") + "/state";
      store_options.temporary = true;
      auto store = UrlStore::Open(store_options);
      EXPECT_TRUE(store.ok()) << store.status().message();
      store_ = std::move(*store);
    }
    if (disk_backed()) {
      o.heads.head_per_origin = 1;
      o.heads.max_loaded = 2;
    }
    return CrawlScheduler(o, clock_, store_.get());
  }

  FakeClock clock_;
  std::unique_ptr<UrlStore> store_;
};

// A page's requisites go to the front of its origin's queue (page order
// among them) while the queue heads have room; past max_loaded they wait
// on disk in seq order. Each URL is leased once either way, and a
// requisite's embed hops travel with its lease.
TEST_P(CrawlSchedulerTest, RequisitesJumpAQueueHeldInRam) {
  auto s = Make(0, 10);
  s.Enqueue("http://a/page1", "http://a", 0);
  s.Enqueue("http://a/style.css", "http://a", 1, 0, 0, /*embed_hops=*/0, /*soon=*/true);
  s.Enqueue("http://a/font.woff2", "http://a", 1, 0, 0, /*embed_hops=*/2, /*soon=*/true);
  std::vector<std::string> urls;
  uint32_t font_hops = 99;
  for (int round = 0; round < 3 && urls.size() < 3; ++round) {
    for (const auto& item : s.Lease("f", 10)) {
      urls.push_back(item.url());
      if (item.url() == "http://a/font.woff2") font_hops = item.embed_hops();
      EXPECT_TRUE(s.Complete("f", Report(item)).known_lease);
    }
  }
  if (disk_backed()) {
    // One URL in the head and two in RAM at most: the stylesheet fits in
    // front, the font waits on disk behind the page.
    EXPECT_EQ(urls, (std::vector<std::string>{"http://a/style.css", "http://a/page1", "http://a/font.woff2"}));
  } else {
    EXPECT_EQ(urls, (std::vector<std::string>{"http://a/style.css", "http://a/font.woff2", "http://a/page1"}));
  }
  EXPECT_EQ(font_hops, 2u);
  EXPECT_TRUE(s.Drained());
}

INSTANTIATE_TEST_SUITE_P(Queues, CrawlSchedulerTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "disk" : "memory";
                         });

TEST_P(CrawlSchedulerTest, LeasesInAdmissionOrderAndFinishesWhenAllReported) {
  // (see below for requisites, which may jump the queue)
  auto s = Make();
  s.Enqueue("http://a/1", "http://a", 0);
  s.Enqueue("http://a/2", "http://a", 1);
  EXPECT_FALSE(s.Drained());
  auto items = s.Lease("f1", 10);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].url(), "http://a/1");
  EXPECT_EQ(items[1].url(), "http://a/2");
  EXPECT_EQ(items[1].depth(), 1u);
  EXPECT_EQ(s.counts().leased, 2u);
  EXPECT_FALSE(s.Drained()) << "leased URLs are not finished";
  EXPECT_TRUE(s.Complete("f1", Report(items[0])).known_lease);
  EXPECT_TRUE(s.Complete("f1", Report(items[1])).known_lease);
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(s.counts().done, 2u);
}

TEST_P(CrawlSchedulerTest, PerHostLimitCapsConcurrentLeases) {
  auto s = Make(/*delay_ms=*/0, /*per_host=*/2);
  for (int i = 0; i < 5; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
  auto first = s.Lease("f", 10);
  EXPECT_EQ(first.size(), 2u);
  EXPECT_TRUE(s.Lease("f", 10).empty());
  s.Complete("f", Report(first[0]));
  EXPECT_EQ(s.Lease("f", 10).size(), 1u);
}

TEST_P(CrawlSchedulerTest, PolitenessDelaySpacesRequestStartsPerHost) {
  auto s = Make(/*delay_ms=*/250, /*per_host=*/10);
  for (int i = 0; i < 3; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
  s.Enqueue("http://b/0", "http://b", 0);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 2u) << "one per host now";
  std::set<std::string> got{items[0].url(), items[1].url()};
  EXPECT_TRUE(got.count("http://a/0") && got.count("http://b/0"));
  clock_.Advance(249);
  EXPECT_TRUE(s.Lease("f", 10).empty());
  EXPECT_EQ(s.NextEventMs(), clock_.NowMs() + 1);
  clock_.Advance(1);
  auto next = s.Lease("f", 10);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].url(), "http://a/1");
}

TEST_P(CrawlSchedulerTest, HostsInterleaveRoundRobin) {
  auto s = Make(0, 100);
  for (int i = 0; i < 3; ++i) {
    s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
    s.Enqueue("http://b/" + std::to_string(i), "http://b", 0);
  }
  auto items = s.Lease("f", 4);
  ASSERT_EQ(items.size(), 4u);
  EXPECT_NE(items[0].url().substr(0, 8), items[1].url().substr(0, 8));
  EXPECT_NE(items[2].url().substr(0, 8), items[3].url().substr(0, 8));
}

TEST_P(CrawlSchedulerTest, ExpiredLeaseReturnsTheUrl) {
  auto s = Make();
  s.Enqueue("http://a/1", "http://a", 0);
  auto items = s.Lease("f", 1);
  ASSERT_EQ(items.size(), 1u);
  clock_.Advance(10001);
  s.ExpireLeases();
  EXPECT_EQ(s.counts().leased, 0u);
  EXPECT_EQ(s.counts().expired_leases, 1u);
  EXPECT_FALSE(s.Drained());
  clock_.Advance(1000);  // first retry backoff
  auto again = s.Lease("f2", 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].url(), "http://a/1");
  EXPECT_EQ(again[0].attempt(), 2u);
  // The first fetcher's late report is stale and ignored.
  EXPECT_FALSE(s.Complete("f", Report(items[0])).known_lease);
  EXPECT_TRUE(s.Complete("f2", Report(again[0])).known_lease);
  EXPECT_TRUE(s.Drained());
}

TEST_P(CrawlSchedulerTest, RetryableFailuresBackOffExponentiallyThenFail) {
  auto s = Make();  // retries = 2, base 1000 ms
  s.Enqueue("http://a/1", "http://a", 0);
  auto item = s.Lease("f", 1);
  s.Complete("f", Report(item[0], 500));
  EXPECT_TRUE(s.Lease("f", 1).empty());
  clock_.Advance(1000);
  item = s.Lease("f", 1);
  ASSERT_EQ(item.size(), 1u);
  s.Complete("f", Report(item[0], 0, v1::FETCH_STATUS_TIMEOUT));
  clock_.Advance(1999);
  EXPECT_TRUE(s.Lease("f", 1).empty()) << "second backoff doubles";
  clock_.Advance(1);
  item = s.Lease("f", 1);
  ASSERT_EQ(item.size(), 1u);
  s.Complete("f", Report(item[0], 500));
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(s.counts().failed, 1u);
  EXPECT_EQ(s.failure_reasons().at("http_500"), 1u);
  // The two attempts that were retried, by their reason.
  EXPECT_EQ(s.retry_reasons().at("http_500"), 1u);
  EXPECT_EQ(s.retry_reasons().at("timeout"), 1u);
  EXPECT_EQ(s.retry_reasons().size(), 2u);
}

TEST_P(CrawlSchedulerTest, RetryAfterIsHonoured) {
  auto s = Make();
  s.Enqueue("http://a/1", "http://a", 0);
  auto item = s.Lease("f", 1);
  auto report = Report(item[0], 429);
  report.set_retry_after_ms(5000);
  s.Complete("f", report);
  clock_.Advance(4999);
  EXPECT_TRUE(s.Lease("f", 1).empty());
  clock_.Advance(1);
  EXPECT_EQ(s.Lease("f", 1).size(), 1u);
}

TEST_P(CrawlSchedulerTest, NotFoundIsFinalAndOtherHostsKeepGoing) {
  auto s = Make();
  s.Enqueue("http://a/1", "http://a", 0);
  auto item = s.Lease("f", 1);
  s.Complete("f", Report(item[0], 404));
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(s.failure_reasons().at("http_404"), 1u);
}

TEST_P(CrawlSchedulerTest, RobotsTxtIsFetchedFirstAndApplied) {
  auto s = Make(0, 2, /*robots=*/true);
  s.Enqueue("http://a/private/x", "http://a", 0);
  s.Enqueue("http://a/public", "http://a", 0);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u) << "nothing but robots.txt before it is known";
  EXPECT_TRUE(items[0].robots_only());
  EXPECT_EQ(items[0].url(), "http://a/robots.txt");
  auto report = Report(items[0]);
  report.set_robots_txt("User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n");
  s.Complete("f", report);
  auto next = s.Lease("f", 10);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].url(), "http://a/public");
  EXPECT_EQ(s.failure_reasons().at("robots_disallowed"), 1u);
  s.Complete("f", Report(next[0]));
  EXPECT_TRUE(s.Drained());
}

TEST_P(CrawlSchedulerTest, RobotsServerErrorRetriesThenFailsTheHost) {
  auto s = Make(0, 2, true);
  s.Enqueue("http://a/x", "http://a", 0);
  for (int attempt = 0; attempt < 3; ++attempt) {
    clock_.Advance(10000);
    auto items = s.Lease("f", 10);
    ASSERT_EQ(items.size(), 1u) << "attempt " << attempt;
    ASSERT_TRUE(items[0].robots_only());
    s.Complete("f", Report(items[0], 500));
  }
  EXPECT_TRUE(s.Drained());
  // Report() sends no cause: the reason names the HTTP status instead.
  EXPECT_EQ(s.failure_reasons().at("robots_unavailable: http_500"), 1u);
  EXPECT_EQ(s.FailingOrigins(10).at(0).last_failure(), "robots.txt: http_500");
}

TEST_P(CrawlSchedulerTest, ARobotsLeaseThatExpiresIsBackedOffAndCappedLikeAnyOther) {
  // A robots.txt that hangs its fetchers: every lease of it expires.
  auto s = Make(0, 2, true);
  s.Enqueue("http://a/x", "http://a", 0);
  s.Enqueue("http://b/y", "http://b", 0);
  auto first = s.Lease("f", 10);
  ASSERT_EQ(first.size(), 2u);
  const auto& hung = first[0].url() == "http://a/robots.txt" ? first[0] : first[1];
  const auto& fine = first[0].url() == "http://a/robots.txt" ? first[1] : first[0];
  ASSERT_TRUE(hung.robots_only());
  s.Complete("f", Report(fine, 404));  // b: no robots.txt
  uint64_t expired = 0;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    clock_.Advance(10001);  // the lease time
    s.ExpireLeases();
    EXPECT_EQ(s.counts().expired_leases, ++expired);
    if (attempt == 3) break;
    // Backed off: not leased again at once (1 s, then 2 s).
    for (const auto& item : s.Lease("f", 10)) {
      if (!item.robots_only()) s.Complete("f", Report(item));
      EXPECT_NE(item.url(), "http://a/robots.txt") << "attempt " << attempt << ": no backoff";
    }
    clock_.Advance(1000 << (attempt - 1));
    auto again = s.Lease("f", 10);
    ASSERT_EQ(again.size(), 1u) << "attempt " << attempt;
    EXPECT_EQ(again[0].url(), "http://a/robots.txt");
    EXPECT_EQ(again[0].attempt(), static_cast<uint32_t>(attempt + 1));
  }
  // Three unanswered leases with two retries: a's URLs fail and the crawl
  // can end, where it used to re-lease robots.txt forever.
  for (const auto& item : s.Lease("f", 10)) s.Complete("f", Report(item));
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(s.failure_reasons().at("robots_unavailable: lease_expired"), 1u);
  EXPECT_EQ(s.FailingOrigins(10).at(0).last_failure(), "robots.txt: lease_expired");
}

TEST_P(CrawlSchedulerTest, FailuresAreCountedByTheFetchersCauseAndNamedPerOrigin) {
  auto s = Make(0, 2, true);
  s.Enqueue("http://a/x", "http://a", 0);
  s.Enqueue("http://b/ok", "http://b", 0);
  s.Enqueue("http://b/tls", "http://b", 0);
  for (int round = 0; round < 8; ++round) {  // a's robots.txt: refused, each time
    clock_.Advance(10000);
    for (const auto& item : s.Lease("f", 10)) {
      if (item.url().rfind("http://a/", 0) == 0) {
        auto r = Report(item, 0, v1::FETCH_STATUS_NETWORK_ERROR);
        r.set_cause("connection_refused");
        r.set_error("Couldn't connect to server");
        s.Complete("f", r);
      } else if (item.robots_only()) {
        s.Complete("f", Report(item, 404));  // b: no robots.txt, allow all
      } else if (item.url() == "http://b/tls") {
        auto r = Report(item, 0, v1::FETCH_STATUS_NETWORK_ERROR);
        r.set_cause("tls_certificate_untrusted");
        r.set_error("SSL certificate problem");
        s.Complete("f", r);
      } else {
        s.Complete("f", Report(item));
      }
    }
  }
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(s.failure_reasons().at("robots_unavailable: connection_refused"), 1u);
  EXPECT_EQ(s.failure_reasons().at("tls_certificate_untrusted"), 1u);
  EXPECT_EQ(s.failure_reasons().count("network_error"), 0u);
  const auto failing = s.FailingOrigins(10);
  ASSERT_EQ(failing.size(), 2u);
  // The origin that fetched nothing comes first.
  EXPECT_EQ(failing[0].host(), "http://a");
  EXPECT_EQ(failing[0].last_failure(), "robots.txt: connection_refused (Couldn't connect to server)");
  EXPECT_EQ(failing[1].host(), "http://b");
  EXPECT_EQ(failing[1].done(), 1u);
  EXPECT_EQ(failing[1].last_failure(), "tls_certificate_untrusted (SSL certificate problem)");
}

TEST_P(CrawlSchedulerTest, RobotsNotFoundAllowsEverything) {
  auto s = Make(0, 2, true);
  s.Enqueue("http://a/x", "http://a", 0);
  auto items = s.Lease("f", 10);
  s.Complete("f", Report(items[0], 404));
  auto next = s.Lease("f", 10);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].url(), "http://a/x");
}

TEST_P(CrawlSchedulerTest, ReleasingALostFetcherRequeuesItsLeases) {
  auto s = Make(0, 10);
  s.Enqueue("http://a/1", "http://a", 0);
  s.Enqueue("http://a/2", "http://a", 0);
  auto items = s.Lease("dead", 1);
  auto other = s.Lease("alive", 1);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(s.leases_of("dead"), 1u);
  s.ReleaseFetcher("dead", /*count_attempt=*/false);
  EXPECT_EQ(s.leases_of("dead"), 0u);
  auto again = s.Lease("alive", 5);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].url(), items[0].url());
}

}  // namespace
}  // namespace zcrawl::frontier

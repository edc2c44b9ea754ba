// The pace of an origin through the scheduler, on a fake clock: the
// response-time rule (--delay-factor), an origin that rate-limits for good
// (`rate_limited`), a lone URL that gets 429s from a healthy origin, and a
// back-off that holds after parking and across a restart.
#include "frontier/scheduler/origin_pace.h"

#include <gtest/gtest.h>

#include <string>

#include "frontier/scheduler/crawl_scheduler.h"
#include "tests/frontier/scheduler_test_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

TEST(OriginPaceTest, TheGapFollowsTheLatestResponseTimePerConnection) {
  PolitenessOptions options;
  options.delay_ms = 250;
  options.per_host = 2;
  options.delay_factor = 2;
  options.max_delay_ms = 30'000;
  const OriginPace pace(options);
  HostSlot slot;
  slot.delay_ms = 250;
  EXPECT_EQ(pace.GapMs(slot), 250) << "no response yet";
  OriginPace::ObserveResponse(slot, 100);
  EXPECT_EQ(pace.GapMs(slot), 250) << "2 x 100 ms / 2 connections is under --delay-ms";
  OriginPace::ObserveResponse(slot, 2'000);
  EXPECT_EQ(pace.GapMs(slot), 2'000) << "a slow server is asked less often";
  OriginPace::ObserveResponse(slot, 100'000);
  EXPECT_EQ(pace.GapMs(slot), 30'000) << "at most --max-delay-ms";
  OriginPace::ObserveResponse(slot, 300);
  EXPECT_EQ(pace.GapMs(slot), 300) << "the latest response counts";
  slot.Trouble().backoff_since_ms = 1;
  slot.trouble->backoff_gap_ms = 100;
  EXPECT_EQ(pace.Concurrency(slot), 1u);
  EXPECT_EQ(pace.GapMs(slot), 600) << "one connection while backing off: the whole factor";

  options.delay_factor = 0;
  EXPECT_EQ(pace.GapMs(slot), 250) << "--delay-factor 0 turns the rule off (options are read live)";
}

TEST(OriginPaceTest, OnAFastSiteTheRuleAddsNothing) {
  PolitenessOptions options;
  options.delay_ms = 0;
  options.per_host = 32;
  const OriginPace pace(options);
  HostSlot slot;
  OriginPace::ObserveResponse(slot, 1);
  EXPECT_EQ(pace.GapMs(slot), 0) << "the benchmark site: 1 ms answers, 32 per host";
}

class SchedulerPaceTest : public ::testing::Test {
 protected:
  SchedulerOptions Options() {
    SchedulerOptions o;
    o.politeness.delay_ms = 0;
    o.politeness.per_host = 1;
    o.politeness.obey_robots = false;
    o.politeness.backoff_max_ms = 4'000;
    o.politeness.rate_limited_max_ms = 60'000;
    o.leases.retries = 2;
    return o;
  }
  FakeClock clock_;
};

TEST_F(SchedulerPaceTest, ASlowAnswerSpacesTheNextRequest) {
  CrawlScheduler s(Options(), clock_);
  for (int i = 0; i < 3; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u);
  v1::FetchReport slow = Report(items[0]);
  slow.set_fetch_ms(800);
  clock_.Advance(800);
  s.Complete("f", slow);
  EXPECT_TRUE(s.Lease("f", 10).empty()) << "2 x 800 ms between starts: not before 1.6 s after the first";
  clock_.Advance(799);
  EXPECT_TRUE(s.Lease("f", 10).empty());
  clock_.Advance(1);
  EXPECT_EQ(s.Lease("f", 10).size(), 1u);
}

// Answers every lease with `http` until nothing is due; returns the leases.
int AnswerAllDue(CrawlScheduler& s, uint32_t http, FakeClock& clock) {
  int n = 0;
  for (auto items = s.Lease("f", 10); !items.empty(); items = s.Lease("f", 10)) {
    clock.Advance(1);  // answers come after their requests
    for (const auto& item : items) {
      s.Complete("f", Report(item, http));
      ++n;
    }
  }
  return n;
}

TEST_F(SchedulerPaceTest, AnOriginThatOnlyRateLimitsFailsItsUrlsRateLimitedAfterTheBound) {
  CrawlScheduler s(Options(), clock_);
  for (int i = 0; i < 5; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
  int requests = 0;
  for (int second = 0; second < 70 && !s.Drained(); ++second) {
    requests += AnswerAllDue(s, 429, clock_);
    clock_.Advance(1'000);
  }
  EXPECT_TRUE(s.Drained()) << "the crawl ends";
  EXPECT_EQ(s.counts().failed, 5u);
  EXPECT_EQ(s.failure_reasons().at("rate_limited"), 5u) << "all of a's URLs, not after 3 attempts each";
  EXPECT_GT(s.held_by_server(), 5u) << "held without using retries for a minute";
  EXPECT_LE(requests, 60 / 4 + 6) << "about one request per back-off gap (4 s at most)";
  EXPECT_EQ(s.retry_reasons().at("http_429"), 1u) << "only the request that met the limit first";
}

// A URL that alone gets 429s: while its origin answers the others, each
// of its 429s starts a new limit and uses a retry; once it is all that is
// left, nothing tells its 429s from the server's, and the bound ends it.
// The others are not held up meanwhile.
TEST_F(SchedulerPaceTest, AUrlThatAloneGets429DoesNotHoldUpItsOrigin) {
  CrawlScheduler s(Options(), clock_);
  s.Enqueue("http://a/bad", "http://a", 0);
  for (int i = 0; i < 20; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
  int all_done_at = -1;
  int bad_asked = 0;
  int second = 0;
  for (; second < 600 && !s.Drained(); ++second) {
    for (auto items = s.Lease("f", 10); !items.empty(); items = s.Lease("f", 10)) {
      clock_.Advance(1);  // answers come after their requests
      for (const auto& item : items) {
        const bool bad = item.url() == "http://a/bad";
        bad_asked += bad;
        s.Complete("f", Report(item, bad ? 429 : 200));
      }
    }
    if (all_done_at < 0 && s.counts().done == 20) all_done_at = second;
    clock_.Advance(1'000);
  }
  ASSERT_TRUE(s.Drained());
  EXPECT_EQ(s.counts().done, 20u);
  EXPECT_GE(all_done_at, 0);
  EXPECT_LT(all_done_at, 40) << "one request a second or so, back-off or not";
  EXPECT_EQ(s.counts().failed, 1u);
  EXPECT_EQ(s.failure_reasons().count("rate_limited") + s.failure_reasons().count("http_429"), 1u);
  EXPECT_LT(second, all_done_at + 60 + 10) << "the bound, from when it was left alone, ends it";
  EXPECT_LE(bad_asked, 60 / 4 + 20) << "asked once per back-off gap";
}

TEST_F(SchedulerPaceTest, ABackoffHoldsAcrossARestart) {
  const std::string dir = zcrawl::testing::MakeTempDir("backoff_restart");
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store);
    CrawlScheduler s(Options(), clock_, store.get());
    for (int i = 0; i < 3; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
    auto items = s.Lease("f", 10);
    ASSERT_EQ(items.size(), 1u);
    v1::FetchReport limited = Report(items[0], 503);
    limited.set_retry_after_ms(30'000);
    clock_.Advance(1);
    s.Complete("f", limited);
    for (int i = 0; i < 3; ++i) {
      s.StageDirtyOrigins();
      ASSERT_TRUE(store->Flush().ok());
    }
  }
  clock_.Advance(10'000);
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  CrawlScheduler s(Options(), clock_, store.get());
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& origin) { ASSERT_TRUE(s.RestoreOrigin(origin).ok()); }).ok());
  EXPECT_EQ(s.origins_backing_off(), 1u);
  EXPECT_TRUE(s.Lease("f", 10).empty()) << "the Retry-After still holds 10 s after the restart";
  ASSERT_EQ(s.SlowedOrigins(10).size(), 1u);
  EXPECT_EQ(s.SlowedOrigins(10)[0].pushbacks(), 1u);
  EXPECT_EQ(s.SlowedOrigins(10)[0].concurrency(), 1u);
  clock_.Advance(20'000);
  EXPECT_EQ(s.Lease("f", 10).size(), 1u) << "one at a time once it has passed";
}

}  // namespace
}  // namespace zcrawl::frontier

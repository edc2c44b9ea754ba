// OriginBackoff: every transition of an origin's back-off, on a fake clock,
// first by the rules alone, then through the scheduler (the whole origin
// waits, not just the URL).
#include "frontier/scheduler/origin_backoff.h"

#include <gtest/gtest.h>

#include "frontier/scheduler/crawl_scheduler.h"
#include "frontier/scheduler/origin_pace.h"
#include "tests/frontier/scheduler_test_support.h"

namespace zcrawl::frontier {
namespace {

v1::FetchReport Answer(uint32_t http, uint32_t retry_after_ms = 0) {
  v1::FetchReport report;
  report.set_status(v1::FETCH_STATUS_OK);
  report.set_http_status(http);
  report.set_retry_after_ms(retry_after_ms);
  return report;
}

v1::FetchReport Failed(v1::FetchStatus status, const std::string& cause) {
  v1::FetchReport report;
  report.set_status(status);
  report.set_cause(cause);
  return report;
}

TEST(OriginBackoffTest, WhatEachAnswerSaysOfTheServer) {
  EXPECT_EQ(SignalOf(Answer(200)), ServerSignal::kHealthy);
  EXPECT_EQ(SignalOf(Answer(404)), ServerSignal::kHealthy) << "a 4xx is a healthy server";
  EXPECT_EQ(SignalOf(Answer(429)), ServerSignal::kPushBack);
  EXPECT_EQ(SignalOf(Answer(503)), ServerSignal::kPushBack);
  EXPECT_EQ(SignalOf(Answer(500)), ServerSignal::kServerError);
  EXPECT_EQ(SignalOf(Failed(v1::FETCH_STATUS_NETWORK_ERROR, "connection_refused")), ServerSignal::kPushBack);
  EXPECT_EQ(SignalOf(Failed(v1::FETCH_STATUS_NETWORK_ERROR, "connection_reset")), ServerSignal::kPushBack);
  EXPECT_EQ(SignalOf(Failed(v1::FETCH_STATUS_TIMEOUT, "timeout")), ServerSignal::kPushBack);
  EXPECT_EQ(SignalOf(Failed(v1::FETCH_STATUS_NETWORK_ERROR, "dns_not_found")), ServerSignal::kNeutral);
  EXPECT_EQ(SignalOf(Failed(v1::FETCH_STATUS_TOO_LARGE, "")), ServerSignal::kNeutral);
}

TEST(OriginBackoffTest, TheGapDoublesToItsCapHealthyAnswersBringItBackStepByStepAndItIsForgotten) {
  PolitenessOptions options;
  options.delay_ms = 250;
  options.per_host = 4;
  options.backoff_max_ms = 8000;
  const OriginBackoff backoff(options);
  const OriginPace pace(options);
  HostSlot slot;
  slot.delay_ms = 250;
  const int64_t now = 5'000;
  EXPECT_EQ(pace.GapMs(slot), 250);
  EXPECT_EQ(pace.Concurrency(slot), 4u);

  EXPECT_TRUE(backoff.Observe(slot, Answer(429), now, now, pace.GapMs(slot)));
  EXPECT_EQ(pace.GapMs(slot), kBackoffStartMs) << "max(--delay-ms, 1 s) at the first push back";
  EXPECT_EQ(pace.Concurrency(slot), 1u);
  EXPECT_EQ(slot.trouble->backoff_since_ms, now);
  EXPECT_EQ(slot.next_fetch_ms, now + kBackoffStartMs);
  int64_t t = now;  // each push back to a request sent after the one before
  for (int64_t expected : {2000, 4000, 8000, 8000}) {
    t += 10;
    EXPECT_TRUE(backoff.Observe(slot, Answer(503), t, t, pace.GapMs(slot)));
    EXPECT_EQ(pace.GapMs(slot), expected);
  }
  EXPECT_EQ(slot.trouble->backoff_since_ms, now) << "since the first push back";
  EXPECT_FALSE(backoff.Observe(slot, Answer(200), t + 2, /*leased_ms=*/now, pace.GapMs(slot)));
  EXPECT_EQ(pace.GapMs(slot), 8000) << "an answer to a request sent before the push back says nothing";
  EXPECT_FALSE(backoff.Observe(slot, Answer(429), t + 2, /*leased_ms=*/now, pace.GapMs(slot)));
  EXPECT_EQ(pace.GapMs(slot), 8000) << "nor does a 429 to one: a rate limit's requests in flight all get one";

  EXPECT_EQ(slot.trouble->backoff_floor_ms, 500) << "twice the pace of the first push back (250 ms)";

  // A quarter off per healthy answer, down to the floor.
  int64_t expected = 8000;
  int answers = 0;
  while (expected * 3 / 4 >= 500) {
    EXPECT_FALSE(backoff.Observe(slot, Answer(200), t + 2, t + 2, pace.GapMs(slot)));
    expected = expected * 3 / 4;
    ++answers;
    EXPECT_EQ(pace.GapMs(slot), expected) << "step by step";
    EXPECT_EQ(pace.Concurrency(slot), 1u);
  }
  EXPECT_EQ(answers, 9) << "8 s down to 600 ms";
  EXPECT_EQ(pace.GapMs(slot), 600);
  EXPECT_FALSE(backoff.Observe(slot, Answer(200), t + 3, t + 3, pace.GapMs(slot)));
  EXPECT_EQ(pace.GapMs(slot), 500) << "at the floor";
  EXPECT_EQ(pace.Concurrency(slot), 1u) << "one at a time until the gap is at its floor";
  // At the floor the pace holds and the concurrency comes back a step per
  // healthy answer, up to --per-host.
  for (uint32_t concurrency : {2u, 3u, 4u, 4u}) {
    EXPECT_FALSE(backoff.Observe(slot, Answer(200), t + 3, t + 3, pace.GapMs(slot)));
    EXPECT_EQ(pace.GapMs(slot), 500) << "not below the floor while it is remembered";
    EXPECT_EQ(pace.Concurrency(slot), concurrency);
  }
  EXPECT_TRUE(OriginBackoff::BackingOff(slot));

  // Pushed back at the floor: the floor was too fast too, and it is one
  // at a time again.
  EXPECT_TRUE(backoff.Observe(slot, Answer(429), t + 4, t + 4, pace.GapMs(slot)));
  EXPECT_EQ(slot.trouble->backoff_floor_ms, 1000);
  EXPECT_EQ(pace.GapMs(slot), 1000);
  EXPECT_EQ(pace.Concurrency(slot), 1u);

  // Forgotten once it has not pushed back for kBackoffForgetMs.
  EXPECT_FALSE(backoff.Observe(slot, Answer(200), t + 4 + kBackoffForgetMs - 1, t + 5, pace.GapMs(slot)));
  EXPECT_TRUE(OriginBackoff::BackingOff(slot));
  EXPECT_FALSE(backoff.Observe(slot, Answer(200), t + 4 + kBackoffForgetMs, t + 5, pace.GapMs(slot)));
  EXPECT_EQ(pace.GapMs(slot), 250) << "back to what the user configured";
  EXPECT_EQ(pace.Concurrency(slot), 4u);
  EXPECT_FALSE(OriginBackoff::BackingOff(slot));
}

TEST(OriginBackoffTest, ABackoffMaxOfZeroTurnsItOff) {
  PolitenessOptions options;
  options.backoff_max_ms = 0;
  const OriginBackoff backoff(options);
  const OriginPace pace(options);
  HostSlot slot;
  EXPECT_FALSE(backoff.Observe(slot, Answer(429, 5000), 1, 1, pace.GapMs(slot)));
  EXPECT_FALSE(OriginBackoff::BackingOff(slot));
  EXPECT_EQ(slot.next_fetch_ms, 0);
}

TEST(OriginBackoffTest, RetryAfterHoldsTheOriginUntilThen) {
  PolitenessOptions options;
  const OriginBackoff backoff(options);
  const OriginPace pace(options);
  HostSlot slot;
  backoff.Observe(slot, Answer(503, 30'000), 1'000, 1'000, pace.GapMs(slot));
  EXPECT_EQ(slot.next_fetch_ms, 31'000);
  backoff.Observe(slot, Answer(429, 10 * kMaxRetryAfterMs), 2'000, 2'000, pace.GapMs(slot));
  EXPECT_EQ(slot.next_fetch_ms, 2'000 + kMaxRetryAfterMs) << "an absurd Retry-After is capped";
}

TEST(OriginBackoffTest, ARunOfServerErrorsPushesBackAndOneDoesNot) {
  PolitenessOptions options;
  const OriginBackoff backoff(options);
  const OriginPace pace(options);
  HostSlot slot;
  EXPECT_FALSE(backoff.Observe(slot, Answer(500), 1, 1, pace.GapMs(slot)));
  EXPECT_FALSE(backoff.Observe(slot, Answer(502), 2, 2, pace.GapMs(slot)));
  EXPECT_FALSE(backoff.Observe(slot, Answer(200), 3, 3, pace.GapMs(slot))) << "a healthy answer breaks the run";
  EXPECT_FALSE(backoff.Observe(slot, Answer(500), 4, 4, pace.GapMs(slot)));
  EXPECT_FALSE(backoff.Observe(slot, Answer(500), 5, 5, pace.GapMs(slot)));
  EXPECT_FALSE(OriginBackoff::BackingOff(slot));
  EXPECT_TRUE(backoff.Observe(slot, Answer(504), 6, 6, pace.GapMs(slot))) << "the third in a row";
  EXPECT_TRUE(OriginBackoff::BackingOff(slot));
}

// Through the scheduler.
class SchedulerBackoffTest : public ::testing::Test {
 protected:
  CrawlScheduler Make() {
    SchedulerOptions o;
    o.politeness.delay_ms = 0;
    o.politeness.per_host = 4;
    o.politeness.obey_robots = false;
    o.leases.retries = 3;
    return CrawlScheduler(o, clock_);
  }
  FakeClock clock_;
};

TEST_F(SchedulerBackoffTest, A429HoldsTheWholeOrigin) {
  CrawlScheduler s = Make();
  for (int i = 0; i < 6; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
  s.Enqueue("http://b/0", "http://b", 0);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 5u) << "four of a (per_host) and b's";
  ASSERT_EQ(items[0].url(), "http://a/0");
  clock_.Advance(1);  // the answers come after the requests went out
  EXPECT_FALSE(s.Complete("f", Report(items[0], 429)).final_state == UrlState::kFailed);
  // The other answers of a already in flight come back healthy meanwhile.
  EXPECT_TRUE(s.Complete("f", Report(items[4])).known_lease);  // b
  EXPECT_EQ(s.pushbacks(), 1u);
  clock_.Advance(999);
  EXPECT_TRUE(s.Lease("f", 10).empty()) << "nothing to a within the gap, though per_host has room";
  
  // Three answers of a still in flight: concurrency 1 means none more.
  for (size_t i = 1; i < 4; ++i) s.Complete("f", Report(items[i]));
  clock_.Advance(1);
  auto next = s.Lease("f", 10);
  ASSERT_EQ(next.size(), 1u) << "one at a time while it backs off";
  EXPECT_EQ(next[0].url(), "http://a/0") << "the held URL goes first";
  EXPECT_EQ(next[0].attempt(), 2u) << "the first 429, to a request sent while a was healthy, used a retry";
  s.Complete("f", Report(next[0], 429));
  EXPECT_EQ(s.held_by_server(), 1u);
  clock_.Advance(1999);
  EXPECT_TRUE(s.Lease("f", 10).empty()) << "the gap doubled";
  clock_.Advance(1);
  next = s.Lease("f", 10);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].url(), "http://a/4") << "the held URL waits behind the others";
  s.Complete("f", Report(next[0]));
  // Healthy answers from here: a/5, then a/0 again, with its retries.
  std::vector<std::string> order;
  for (int step = 0; step < 100 && order.size() < 2; ++step) {
    clock_.Advance(100);
    for (const auto& item : s.Lease("f", 10)) {
      order.push_back(item.url());
      if (item.url() == "http://a/0") {
        EXPECT_EQ(item.attempt(), 2u) << "a 429 while a was already limiting is a's state: no retry used";
      }
      s.Complete("f", Report(item));
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"http://a/5", "http://a/0"}));
  EXPECT_EQ(s.counts().failed, 0u);
  EXPECT_EQ(s.retry_reasons().at("http_429"), 1u);
  EXPECT_EQ(s.answered_429(), 2u);
}

TEST(OriginBackoffTest, ARateLimitLastsUntilALaterRequestIsAnsweredHealthy) {
  PolitenessOptions options;
  options.rate_limited_max_ms = 60'000;
  const OriginBackoff backoff(options);
  const OriginPace pace(options);
  HostSlot slot;
  EXPECT_FALSE(OriginBackoff::HeldByServer(slot, 0));
  backoff.Observe(slot, Answer(429), 1'000, 900, pace.GapMs(slot));
  EXPECT_EQ(slot.trouble->limited_since_ms, 1'000);
  EXPECT_FALSE(OriginBackoff::HeldByServer(slot, 900)) << "sent before the limit began: the URL uses a retry";
  EXPECT_FALSE(OriginBackoff::HeldByServer(slot, 1'000)) << "nor in the same ms (a clock's step is no proof)";
  EXPECT_TRUE(OriginBackoff::HeldByServer(slot, 1'001));
  backoff.Observe(slot, Answer(200), 1'500, 950, pace.GapMs(slot));
  EXPECT_EQ(slot.trouble->limited_since_ms, 1'000) << "an answer to a request sent before says nothing";
  backoff.Observe(slot, Answer(503), 30'000, 29'000, pace.GapMs(slot));
  EXPECT_EQ(slot.trouble->limited_since_ms, 1'000) << "still the same limit";
  EXPECT_FALSE(backoff.LimitedTooLong(slot, 60'999));
  EXPECT_TRUE(backoff.LimitedTooLong(slot, 61'000));
  backoff.Observe(slot, Answer(200), 40'000, 31'000, pace.GapMs(slot));
  EXPECT_EQ(slot.trouble->limited_since_ms, 0) << "a later request answered: the limit is over";
  EXPECT_FALSE(backoff.LimitedTooLong(slot, 200'000));
  EXPECT_TRUE(OriginBackoff::BackingOff(slot)) << "the back-off itself comes down step by step";
  backoff.Observe(slot, Answer(500), 50'000, 45'000, pace.GapMs(slot));
  EXPECT_EQ(slot.trouble->limited_since_ms, 0) << "a 500 is no rate limit";
}

// A rate limit answers every request in flight 429, and on loopback the
// first answer can reach the scheduler within the millisecond the requests
// were leased. The others were sent before the push back (nothing can be
// leased after it within that millisecond: the origin is held), so they
// must not push it back further (they doubled the gap before: seen in the
// bench's "struggling" part, a host's first gaps 2 s instead of 1 s).
TEST_F(SchedulerBackoffTest, RefusalsLeasedInThePushBacksMillisecondPushNothingFurther) {
  CrawlScheduler s = Make();
  for (int i = 0; i < 6; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 4u);
  s.Complete("f", Report(items[0], 429));  // the clock has not moved
  s.Complete("f", Report(items[1], 429));
  EXPECT_EQ(s.pushbacks(), 1u) << "the second 429 was to a request sent before the first";
  for (size_t i = 2; i < 4; ++i) s.Complete("f", Report(items[i]));
  clock_.Advance(kBackoffStartMs);
  EXPECT_EQ(s.Lease("f", 10).size(), 1u) << "the first gap (1 s), not twice it";
}

}  // namespace
}  // namespace zcrawl::frontier

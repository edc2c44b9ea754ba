// The operator's blocks and politeness overrides through the scheduler, on
// a fake clock: a blocked origin's queue ends `blocked` with nothing
// leased (not its robots.txt either); a pattern ends only what it matches;
// an override's delay and concurrency replace the crawl's, and a back-off
// never brings the origin back faster than the override.
#include <gtest/gtest.h>

#include <optional>

#include "frontier/control/crawl_controls.h"
#include "frontier/scheduler/crawl_scheduler.h"
#include "tests/frontier/scheduler_test_support.h"

namespace zcrawl::frontier {
namespace {

class SchedulerControlsTest : public ::testing::Test {
 protected:
  SchedulerOptions Options() {
    SchedulerOptions o;
    o.politeness.delay_ms = 100;
    o.politeness.per_host = 4;
    o.politeness.per_ip = 0;
    o.politeness.delay_factor = 0;
    o.politeness.obey_robots = true;
    return o;
  }
  v1::Control Block(const std::string& target) {
    v1::Control c;
    *c.mutable_block()->mutable_target() = *ParseTarget(target);
    return c;
  }
  v1::Control Pace(const std::string& target, std::optional<uint32_t> delay, std::optional<uint32_t> per_host) {
    v1::Control c;
    *c.mutable_politeness()->mutable_target() = *ParseTarget(target);
    if (delay) c.mutable_politeness()->set_delay_ms(*delay);
    if (per_host) c.mutable_politeness()->set_per_host(*per_host);
    return c;
  }
  // Leases everything ready now; answers robots.txt with 404 (allow all)
  // at once, and keeps the pages leased in `held`.
  std::vector<v1::WorkItem> LeasePages(CrawlScheduler& s) {
    std::vector<v1::WorkItem> pages;
    for (int round = 0; round < 3; ++round) {
      for (auto& item : s.Lease("f", 100)) {
        if (item.robots_only()) {
          s.Complete("f", Report(item, 404));
        } else {
          pages.push_back(std::move(item));
        }
      }
    }
    return pages;
  }

  FakeClock clock_;
  CrawlControls controls_;
};

TEST_F(SchedulerControlsTest, ABlockedOriginEndsBlockedWithNothingLeasedNotEvenRobots) {
  CrawlScheduler s(Options(), clock_);
  s.UseControls(&controls_.blocks(), &controls_.overrides());
  for (int i = 0; i < 50; ++i) s.Enqueue("http://spam.test/" + std::to_string(i), "http://spam.test", 0);
  s.Enqueue("http://good.test/", "http://good.test", 0);
  ASSERT_TRUE(controls_.Apply(Block("spam.test"), clock_.WallMs()).ok());
  s.ControlsChanged();
  std::vector<v1::WorkItem> leased;
  for (int i = 0; i < 20; ++i) {
    for (auto& item : s.Lease("f", 100)) {
      EXPECT_EQ(item.url().find("spam.test"), std::string::npos) << "leased a blocked URL: " << item.url();
      s.Complete("f", Report(item, item.robots_only() ? 404 : 200));
    }
    clock_.Advance(100);
  }
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(s.failure_reasons().at("blocked"), 50u);
  EXPECT_EQ(controls_.blocks().Rules()[0].blocked_urls(), 50u);
  EXPECT_EQ(s.counts().done, 1u) << "good.test's page";
}

TEST_F(SchedulerControlsTest, APatternEndsOnlyTheURLsItMatches) {
  CrawlScheduler s(Options(), clock_);
  s.UseControls(&controls_.blocks(), &controls_.overrides());
  for (int i = 0; i < 10; ++i) {
    s.Enqueue("http://shop.test/item/" + std::to_string(i), "http://shop.test", 0);
    s.Enqueue("http://shop.test/cart/" + std::to_string(i), "http://shop.test", 0);
  }
  ASSERT_TRUE(controls_.Apply(Block("re:/cart/"), clock_.WallMs()).ok());
  uint64_t pages = 0;
  for (int i = 0; i < 100 && !s.Drained(); ++i) {
    for (auto& item : s.Lease("f", 100)) {
      EXPECT_EQ(item.url().find("/cart/"), std::string::npos) << item.url();
      pages += !item.robots_only();
      s.Complete("f", Report(item, item.robots_only() ? 404 : 200));
    }
    clock_.Advance(100);
  }
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(pages, 10u);
  EXPECT_EQ(s.failure_reasons().at("blocked"), 10u);
}

TEST_F(SchedulerControlsTest, AnOverrideReplacesTheDelayAndTheConcurrencyUntilCleared) {
  CrawlScheduler s(Options(), clock_);
  s.UseControls(&controls_.blocks(), &controls_.overrides());
  for (int i = 0; i < 40; ++i) s.Enqueue("http://a.test/" + std::to_string(i), "http://a.test", 0);
  // The owner asked for one request at a time, a second apart.
  ASSERT_TRUE(controls_.Apply(Pace("a.test", 1000, 1), clock_.WallMs()).ok());
  s.ControlsChanged();
  EXPECT_TRUE(LeasePages(s).empty()) << "robots.txt first, then the override's gap";
  clock_.Advance(1000);
  auto pages = s.Lease("f", 100);
  ASSERT_EQ(pages.size(), 1u);
  clock_.Advance(1000);
  EXPECT_TRUE(s.Lease("f", 100).empty()) << "one in flight: the override's concurrency";
  s.Complete("f", Report(pages[0]));
  pages.clear();
  // The robots.txt answer started the gap too; the page's lease at +0.
  const int64_t started = clock_.NowMs();
  for (int ms = 0; ms < 3000; ms += 50) {
    for (auto& item : s.Lease("f", 100)) {
      pages.push_back(item);
      s.Complete("f", Report(item));
    }
    clock_.Advance(50);
  }
  EXPECT_GE(pages.size(), 2u);
  EXPECT_LE(pages.size(), 4u) << "one start a second over 3 s, not one per 100 ms (" << clock_.NowMs() - started
                              << " ms)";

  // Cleared: back to --delay-ms 100 and --per-host 4.
  v1::Control clear = Pace("a.test", std::nullopt, std::nullopt);
  clear.mutable_politeness()->set_clear(true);
  ASSERT_TRUE(controls_.Apply(clear, clock_.WallMs()).ok());
  s.ControlsChanged();
  clock_.Advance(1000);
  std::vector<v1::WorkItem> held;
  for (int ms = 0; ms < 1000; ms += 100) {
    for (auto& item : s.Lease("f", 100)) held.push_back(item);
    clock_.Advance(100);
  }
  EXPECT_EQ(held.size(), 4u) << "--per-host 4 in flight again, one start per 100 ms";
}

}  // namespace
}  // namespace zcrawl::frontier

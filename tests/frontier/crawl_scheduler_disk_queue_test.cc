// The scheduler with disk-backed queues and many origins: the RAM its
// origins and heads hold, refills within their bounds, robots rules that
// wait on disk, and a resumed origin's queue (the cases both queue kinds
// share are in crawl_scheduler_test.cc).
#include "frontier/scheduler/crawl_scheduler.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/frontier/scheduler_test_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

// Disk-backed queues beyond the shared cases: a long queue leaves in
// admission order through a head of one, and a resumed origin leases what
// its queue holds on disk, minus what was recorded final.

// Many origins, each refilled as it is leased: a full head each would hold
// 300 x 64 URLs. Returns the most URLs and head bytes the heads held.
// The most URLs and bytes the heads held while 300 origins of 100 URLs
// each were leased round-robin, and the refills that took.
struct ManyOrigins {
  uint64_t most_loaded = 0;
  uint64_t most_bytes = 0;
  uint64_t refills = 0;
};

ManyOrigins LeaseManyOrigins(SchedulerOptions o, const std::string& dir) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir(dir));
  EXPECT_TRUE(store);
  if (!store) return {};
  o.politeness.delay_ms = 0;
  o.politeness.per_host = 1000;
  o.politeness.obey_robots = false;
  o.heads.head_per_origin = 64;
  CrawlScheduler s(o, clock, store.get());
  constexpr int kOrigins = 300, kPerOrigin = 100;
  for (int i = 0; i < kPerOrigin; ++i) {
    for (int h = 0; h < kOrigins; ++h) {
      s.Enqueue("http://h" + std::to_string(h) + "/" + std::to_string(i), "http://h" + std::to_string(h), 0);
    }
  }
  uint64_t leased = 0, most_loaded = 0, most_bytes = 0;
  while (true) {
    auto items = s.Lease("f", 50);
    if (items.empty()) break;
    most_loaded = std::max<uint64_t>(most_loaded, s.heads().loaded());
    most_bytes = std::max<uint64_t>(most_bytes, s.heads().head_bytes());
    for (const auto& item : items) {
      EXPECT_TRUE(s.Complete("f", Report(item)).known_lease);
      ++leased;
    }
  }
  EXPECT_EQ(leased, uint64_t{kOrigins} * kPerOrigin) << "every URL leased once";
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(s.heads().loaded(), 0u);
  EXPECT_EQ(s.heads().head_bytes(), 0u) << "drained heads hold no RAM";
  EXPECT_EQ(s.heads().errors(), 0u);
  EXPECT_EQ(s.heads().backlogged_origins(), 0u);
  return {most_loaded, most_bytes, s.heads().refills()};
}

SchedulerOptions ObeyingRobotsWithoutDelay() {
  SchedulerOptions o;
  o.politeness.delay_ms = 0;
  o.politeness.obey_robots = true;
  return o;
}

TEST(CrawlSchedulerOriginsTest, TheOriginsRamGrowsWithTheOriginsAndTheirRobotsRules) {
  FakeClock clock;
  CrawlScheduler s(ObeyingRobotsWithoutDelay(), clock);
  const uint64_t empty = s.origins().bytes();
  for (int h = 0; h < 1000; ++h) {
    const std::string origin = "http://a-rather-long-host-name-" + std::to_string(h) + ".test";
    s.Enqueue(origin + "/", origin, 0);
  }
  const uint64_t thousand = s.origins().bytes();
  // A slot, its name (longer than a string holds inline) and its index
  // entry: a few hundred bytes an origin.
  EXPECT_GT(thousand - empty, 1000u * (sizeof(HostSlot) + 40));
  EXPECT_LT(thousand - empty, 1000u * 2 * (sizeof(HostSlot) + 48 + 64)) << "no more than twice the slot and name an origin";
  // What few origins have (rules, a failure) is behind pointers and the
  // name index keeps no copy of the name, so an origin of a ~40-character
  // name costs under 400 bytes (536 with the rules and the failure in the
  // slot and the name twice).
  EXPECT_LT(thousand - empty, 1000u * 400);
  // Each origin's robots.txt, with a rule each: the rules count too.
  std::string robots = "User-agent: *\n";
  for (int i = 0; i < 50; ++i) robots += "Disallow: /a-long-private-path-number-" + std::to_string(i) + "/\n";
  for (int leased = 0; leased < 1000;) {
    auto items = s.Lease("f", 100);
    ASSERT_FALSE(items.empty());
    for (const auto& item : items) {
      ASSERT_TRUE(item.robots_only());
      v1::FetchReport report = Report(item);
      report.set_robots_txt(robots);
      s.Complete("f", report);
      ++leased;
    }
  }
  EXPECT_GT(s.origins().bytes() - thousand, 1000u * 50 * 40) << "50 rules of ~40 bytes an origin";
}

// a.test's first lease is its robots.txt, answered with `robots`; its one
// URL, http://a.test/1, is leased and done after it: the origin is idle.
void CrawlRobotsThenTheOnlyUrl(CrawlScheduler& s, const std::string& robots) {
  s.Enqueue("http://a.test/1", "http://a.test", 0);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u);
  ASSERT_TRUE(items[0].robots_only());
  v1::FetchReport report = Report(items[0]);
  report.set_robots_txt(robots);
  s.Complete("f", report);
  items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].url(), "http://a.test/1");
  s.Complete("f", Report(items[0]));
}

TEST(CrawlSchedulerDiskQueueTest, AnIdleOriginsRobotsRulesWaitOnDiskAndComeBackForItsNextUrl) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("scheduler_robots_spill"));
  ASSERT_TRUE(store);
  CrawlScheduler s(ObeyingRobotsWithoutDelay(), clock, store.get());
  std::string robots = "User-agent: *\nDisallow: /private\n";
  for (int i = 0; i < 40; ++i) robots += "Disallow: /another-long-private-path-" + std::to_string(i) + "\n";
  CrawlRobotsThenTheOnlyUrl(s, robots);
  const uint64_t with_rules = s.origins().bytes();
  // Idle now, but its rules are only staged: they stay in RAM.
  EXPECT_EQ(s.robots().spilled(), 0u);
  EXPECT_EQ(s.origins().bytes(), with_rules);
  // A commit writes them; the next one sees them settled and lets them go.
  s.StageDirtyOrigins();
  ASSERT_TRUE(store->Flush().ok());
  s.StageDirtyOrigins();
  ASSERT_TRUE(store->Flush().ok());
  s.StageDirtyOrigins();
  EXPECT_EQ(s.robots().spilled(), 1u);
  EXPECT_LT(s.origins().bytes() + 40 * 30, with_rules) << "the rules left RAM";
  // New URLs: the rules come back from the store, no robots.txt is asked
  // again, and they still apply.
  s.Enqueue("http://a.test/private/x", "http://a.test", 1);
  s.Enqueue("http://a.test/2", "http://a.test", 1);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_FALSE(items[0].robots_only());
  EXPECT_EQ(items[0].url(), "http://a.test/2");
  EXPECT_EQ(s.robots().reloaded(), 1u);
  EXPECT_EQ(s.robots().reload_misses(), 0u);
  EXPECT_EQ(s.failure_reasons().at("robots_disallowed"), 1u);
}

TEST(CrawlSchedulerDiskQueueTest, SpilledRobotsRulesTheStoreLacksAreAskedForAgain) {
  FakeClock clock;
  const std::string dir = zcrawl::testing::MakeTempDir("scheduler_robots_miss");
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  CrawlScheduler s(ObeyingRobotsWithoutDelay(), clock, store.get());
  CrawlRobotsThenTheOnlyUrl(s, "User-agent: *\nDisallow: /private\n");
  for (int i = 0; i < 3; ++i) {
    s.StageDirtyOrigins();
    ASSERT_TRUE(store->Flush().ok());
  }
  ASSERT_EQ(s.robots().spilled(), 1u);
  // Another learning of the rules took the key meanwhile (as a damaged or
  // foreign entry would): this run's are not there.
  store->StageRobots(0, /*run=*/12345, /*fetched_ms=*/0, "");
  ASSERT_TRUE(store->Flush().ok());
  s.Enqueue("http://a.test/2", "http://a.test", 1);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_TRUE(items[0].robots_only()) << "robots.txt is asked again";
  EXPECT_EQ(s.robots().reload_misses(), 1u);
}

TEST(CrawlSchedulerDiskQueueTest, RefillsOfManyOriginsStayWithinMaxLoaded) {
  // Within max_loaded the heads hold at most the cap plus kMinRefill per origin.
  SchedulerOptions o;
  o.heads.max_loaded = 100;
  const auto [most_loaded, most_bytes, refills] = LeaseManyOrigins(o, "scheduler_many");
  EXPECT_LE(most_loaded, o.heads.max_loaded + kMinRefill * 300);
  EXPECT_GT(most_loaded, 0u);
}

// Heads bounded well above the origins' number: each refill takes about
// the origin's fair share of the bound (3,000 / 300 = 10, more as origins
// run out), not the kMinRefill a refill takes at the bound. Refills that
// took all the room left filled the heads to the bound, and from then on
// every refill read 4 URLs: 4,294 refills here against 2,700.
TEST(CrawlSchedulerDiskQueueTest, RefillsTakeTheOriginsFairShareOfTheHeads) {
  SchedulerOptions o;
  o.heads.max_loaded = 3000;
  const ManyOrigins many = LeaseManyOrigins(o, "scheduler_fair_share");
  EXPECT_LE(many.most_loaded, o.heads.max_loaded + kMinRefill * 300);
  // 27,000 URLs came from disk (the first 10 of each origin were enqueued
  // into its head): at least 8 a refill.
  EXPECT_LE(many.refills, 27'000u / 8);
}

TEST(CrawlSchedulerDiskQueueTest, RefillsOfManyOriginsStayWithinTheHeadsBytes) {
  // The frontier's bound: bytes of packed records, at most the bound plus
  // kMinRefill records per origin (a record here is ~10 bytes; a head's
  // buffer at most doubles them).
  SchedulerOptions o;
  o.heads.max_head_bytes = 4096;
  const auto [most_loaded, most_bytes, refills] = LeaseManyOrigins(o, "scheduler_many_bytes");
  EXPECT_LE(most_bytes, o.heads.max_head_bytes + 300 * kMinRefill * 2 * 16);
  EXPECT_GT(most_bytes, o.heads.max_head_bytes / 2) << "the bound was never reached";
  // Unbounded, the same crawl holds far more.
  const auto [free_loaded, free_bytes, free_refills] = LeaseManyOrigins(SchedulerOptions{}, "scheduler_many_free");
  EXPECT_GT(free_bytes, 4 * most_bytes);
}

TEST(CrawlSchedulerDiskQueueTest, ALongQueueLeavesInOrderWithABoundedHead) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("scheduler_long"));
  ASSERT_TRUE(store);
  SchedulerOptions o;
  o.politeness.delay_ms = 0;
  o.politeness.per_host = 1000;
  o.politeness.obey_robots = false;
  o.heads.head_per_origin = 16;
  o.heads.max_loaded = 32;
  CrawlScheduler s(o, clock, store.get());
  for (int i = 0; i < 5000; ++i) {
    s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
    s.Enqueue("http://b/" + std::to_string(i), "http://b", 0);
  }
  EXPECT_LE(s.heads().loaded(), 32u);
  EXPECT_EQ(s.counts().waiting, 10000u);
  int next_a = 0, next_b = 0;
  while (true) {
    auto items = s.Lease("f", 7);
    if (items.empty()) break;
    for (const auto& item : items) {
      const bool is_a = item.url().rfind("http://a/", 0) == 0;
      int& next = is_a ? next_a : next_b;
      ASSERT_EQ(item.url(), std::string(is_a ? "http://a/" : "http://b/") + std::to_string(next));
      ++next;
      ASSERT_TRUE(s.Complete("f", Report(item)).known_lease);
    }
    ASSERT_LE(s.heads().loaded(), 32u + 16u);
  }
  EXPECT_EQ(next_a, 5000);
  EXPECT_EQ(next_b, 5000);
  EXPECT_TRUE(s.Drained());
  EXPECT_GT(s.heads().refills(), 600u);
  EXPECT_EQ(s.heads().errors(), 0u);
}

// A page's requisites are fetched soon after it also when its origin's
// queue is mostly on disk: they jump the backlog, and the refill that
// later reaches their place on disk skips them: each URL leased once.
TEST(CrawlSchedulerDiskQueueTest, RequisitesJumpADiskBacklogAndAreLeasedOnce) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("scheduler_requisites"));
  ASSERT_TRUE(store);
  SchedulerOptions o;
  o.politeness.delay_ms = 0;
  o.politeness.per_host = 1000;
  o.politeness.obey_robots = false;
  o.heads.head_per_origin = 4;
  o.heads.max_loaded = 1000;
  CrawlScheduler s(o, clock, store.get());
  for (int i = 0; i < 100; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", 0);
  auto first = s.Lease("f", 1);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(first[0].url(), "http://a/0");
  ASSERT_TRUE(s.Complete("f", Report(first[0])).known_lease);
  // Page 0's requisites, while 96 of its origin's URLs wait on disk; then
  // a link of page 0, which waits its turn.
  s.Enqueue("http://a/style.css", "http://a", 1, 0, 0, 0, /*soon=*/true);
  s.Enqueue("http://a/logo.png", "http://a", 1, 0, 0, 0, /*soon=*/true);
  s.Enqueue("http://a/late-link", "http://a", 1);
  std::vector<std::string> urls;
  while (true) {
    auto items = s.Lease("f", 3);
    if (items.empty()) break;
    for (const auto& item : items) {
      urls.push_back(item.url());
      ASSERT_TRUE(s.Complete("f", Report(item)).known_lease);
    }
  }
  ASSERT_EQ(urls.size(), 102u) << "every URL leased once";
  EXPECT_EQ(urls[0], "http://a/style.css");
  EXPECT_EQ(urls[1], "http://a/logo.png");
  for (int i = 1; i < 100; ++i) EXPECT_EQ(urls[1 + i], "http://a/" + std::to_string(i));
  EXPECT_EQ(urls.back(), "http://a/late-link");
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(s.heads().errors(), 0u);
  EXPECT_EQ(s.heads().loaded(), 0u);
}

TEST(CrawlSchedulerDiskQueueTest, AResumedOriginLeasesItsQueueFromDiskMinusRecordedFinals) {
  FakeClock clock;
  const std::string dir = zcrawl::testing::MakeTempDir("scheduler_resume");
  SchedulerOptions o;
  o.politeness.delay_ms = 0;
  o.politeness.per_host = 100;
  o.politeness.obey_robots = false;
  o.heads.head_per_origin = 4;
  std::set<std::string> done;
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store);
    CrawlScheduler s(o, clock, store.get());
    for (int i = 0; i < 50; ++i) s.Enqueue("http://a/" + std::to_string(i), "http://a", i % 3);
    s.Enqueue("http://b/only", "http://b", 0);
    // The first three (a/0, b/only, a/1: origins take turns) are fetched and
    // recorded final, as the broker does.
    auto items = s.Lease("f", 3);
    ASSERT_EQ(items.size(), 3u);
    for (const auto& item : items) {
      done.insert(item.url());
      const Completion c = s.Complete("f", Report(item));
      store->StageDequeued(c.origin_index, c.seq);
      s.RecordedFinal(c.origin_index, UrlState::kDone);
    }
    s.Lease("f", 2);  // leased when the crash comes: waiting again after it
    s.StageDirtyOrigins();
    ASSERT_TRUE(store->Write(true).ok());
  }
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  CrawlScheduler s(o, clock, store.get());
  std::vector<StoredOrigin> origins;
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& origin) { origins.push_back(origin); }).ok());
  ASSERT_EQ(origins.size(), 2u);
  for (const auto& origin : origins) ASSERT_TRUE(s.RestoreOrigin(origin).ok());
  EXPECT_EQ(s.counts().done, 3u);
  EXPECT_EQ(s.counts().waiting, 48u);
  EXPECT_EQ(s.heads().loaded(), 0u) << "nothing is read before it is leased";
  std::vector<std::string> leased;
  for (auto items = s.Lease("g", 100); !items.empty(); items = s.Lease("g", 100)) {
    for (const auto& item : items) leased.push_back(item.url());
  }
  // Every URL not recorded final, once each, in admission order.
  ASSERT_EQ(leased.size(), 48u);
  std::vector<std::string> expected;
  for (int i = 0; i < 50; ++i) {
    const std::string url = "http://a/" + std::to_string(i);
    if (!done.count(url)) expected.push_back(url);
  }
  EXPECT_EQ(leased, expected);
  EXPECT_TRUE(done.count("http://b/only"));
  // Out of order origin records are damage, not a fresh start.
  CrawlScheduler other(o, clock, store.get());
  EXPECT_FALSE(other.RestoreOrigin(origins[1]).ok());
}

TEST(CrawlSchedulerRobotsTtlTest, RobotsTxtIsFetchedAgainAfterADay) {
  FakeClock clock;
  CrawlScheduler s(ObeyingRobotsWithoutDelay(), clock);
  s.Enqueue("http://a/1", "http://a", 0);
  auto robots = s.Lease("f", 10);
  ASSERT_TRUE(robots.at(0).robots_only());
  v1::FetchReport report = Report(robots[0]);
  report.set_robots_txt("User-agent: *\nDisallow:\n");
  s.Complete("f", report);
  EXPECT_FALSE(s.Lease("f", 10).at(0).robots_only()) << "fresh rules are used";
  s.Enqueue("http://a/2", "http://a", 0);
  clock.Advance(24 * 3600 * 1000 + 1);
  auto next = s.Lease("f", 10);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_TRUE(next[0].robots_only()) << "rules older than a day are fetched again first";
}

}  // namespace
}  // namespace zcrawl::frontier

// Parking (origin_table.h): an origin with nothing due leaves RAM for
// the store and comes back exact (its counts, robots rules, crawl delay,
// per-host count and status row) when a URL of it is admitted, in the same
// run and after a resume.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontier/scheduler/crawl_scheduler.h"
#include "tests/frontier/scheduler_test_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

SchedulerOptions Options() {
  SchedulerOptions o;
  o.politeness.delay_ms = 0;
  o.politeness.per_host = 4;
  o.politeness.obey_robots = true;
  return o;
}

std::string Origin(int h) { return "http://host-" + std::to_string(h) + ".test"; }

constexpr const char* kRobots = "User-agent: *\nDisallow: /private\nCrawl-delay: 5\n";

// Leases everything due and answers it as a fetcher and the broker would:
// robots.txt with kRobots, /gone with a 404, the rest with a 200; each
// final state recorded in the store (Broker::RecordFinal). Returns the URLs
// leased, robots.txt included.
std::vector<std::string> FetchAllDue(CrawlScheduler& s, UrlStore& store) {
  std::vector<std::string> urls;
  for (auto items = s.Lease("f", 100); !items.empty(); items = s.Lease("f", 100)) {
    for (const auto& item : items) {
      urls.push_back(item.url());
      v1::FetchReport report = Report(item, item.url().ends_with("/gone") ? 404 : 200);
      if (item.robots_only()) report.set_robots_txt(kRobots);
      const Completion c = s.Complete("f", report);
      if (c.final_state != UrlState::kWaiting) {
        store.StageDequeued(c.origin_index, c.seq);
        s.RecordedFinal(c.origin_index, c.final_state);
      }
    }
  }
  return urls;
}

// The broker's commits: stage, write, again until the writes are settled.
void Commit(CrawlScheduler& s, UrlStore& store, int times = 3) {
  for (int i = 0; i < times; ++i) {
    s.StageDirtyOrigins();
    ASSERT_TRUE(store.Flush().ok());
  }
}

// 500 origins, each with a page and a page that is gone, crawled out.
void CrawlOut(CrawlScheduler& s, UrlStore& store, FakeClock& clock) {
  for (int h = 0; h < 500; ++h) {
    s.Enqueue(Origin(h) + "/", Origin(h), 0);
    s.Enqueue(Origin(h) + "/gone", Origin(h), 1);
  }
  // The crawl delay spaces each origin's two pages by 5 s.
  for (int round = 0; round < 4; ++round) {
    FetchAllDue(s, store);
    clock.Advance(5000);
  }
  ASSERT_TRUE(s.Drained());
}

TEST(OriginParkingTest, OriginsWithNothingDueLeaveRamOnceTheStoreHoldsThem) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("parking_leave"));
  ASSERT_TRUE(store);
  CrawlScheduler s(Options(), clock, store.get());
  CrawlOut(s, *store, clock);
  const uint64_t before = s.origins().bytes();
  EXPECT_EQ(s.origins().loaded_count(), 500u);
  EXPECT_GT(before, 500u * 200) << "each origin's slot, name and rules";
  EXPECT_EQ(s.origins().parked(), 0u) << "nothing parks before its record is written";
  Commit(s, *store);
  EXPECT_EQ(s.origins().parked(), 500u);
  EXPECT_EQ(s.origins().loaded_count(), 0u);
  EXPECT_EQ(s.origins().known(), 500u);
  EXPECT_EQ(s.origins().bytes(), 0u) << "a parked origin costs no RAM";
  EXPECT_EQ(s.counts().done, 500u);
  EXPECT_EQ(s.counts().failed, 500u);
  // The status still names the busiest and failing origins.
  const auto busiest = s.TopOrigins(5, /*by_done=*/true);
  ASSERT_EQ(busiest.size(), 5u);
  EXPECT_EQ(busiest[0].done(), 1u);
  EXPECT_EQ(busiest[0].failed(), 1u);
  const auto failing = s.FailingOrigins(10);
  ASSERT_EQ(failing.size(), 10u);
  EXPECT_EQ(failing[0].last_failure(), "http_404");
}

TEST(OriginParkingTest, AParkedOriginComesBackWithItsCountsRulesAndCrawlDelay) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("parking_back"));
  ASSERT_TRUE(store);
  CrawlScheduler s(Options(), clock, store.get());
  CrawlOut(s, *store, clock);
  Commit(s, *store);
  ASSERT_EQ(s.origins().parked(), 500u);
  // The per-host cap's count loads it: two URLs were admitted for it.
  EXPECT_EQ(s.Admitted(Origin(7)), 2u);
  EXPECT_EQ(s.origins().unparked(), 1u);
  EXPECT_EQ(s.origins().parked(), 499u);
  EXPECT_EQ(s.Admitted("http://never-seen.test"), 0u);
  EXPECT_EQ(s.origins().known(), 500u) << "an unknown origin is not created by asking";
  s.Enqueue(Origin(7) + "/private/x", Origin(7), 1);
  s.Enqueue(Origin(7) + "/a", Origin(7), 1);
  s.Enqueue(Origin(7) + "/b", Origin(7), 1);
  EXPECT_EQ(s.origins().known(), 500u) << "the same origin, not a new one";
  // Its rules came back with it: no robots.txt lease, /private refused.
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u) << "the crawl delay holds the second";
  EXPECT_FALSE(items[0].robots_only());
  EXPECT_EQ(items[0].url(), Origin(7) + "/a");
  EXPECT_EQ(s.failure_reasons().at("robots_disallowed"), 1u);
  s.Complete("f", Report(items[0]));
  clock.Advance(4999);
  EXPECT_TRUE(s.Lease("f", 10).empty()) << "Crawl-delay: 5 still applies";
  clock.Advance(1);
  items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].url(), Origin(7) + "/b");
  // Its counts carried on from the stored record.
  const auto top = s.TopOrigins(1, /*by_done=*/true);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].host(), Origin(7));
  EXPECT_EQ(top[0].done(), 2u);
  EXPECT_EQ(top[0].failed(), 2u);
  // Loaded for its count only (a cap then refuses the URL), an origin
  // parks again at the next commit.
  EXPECT_EQ(s.Admitted(Origin(8)), 2u);
  const uint64_t parked = s.origins().parked();
  Commit(s, *store, 1);
  EXPECT_EQ(s.origins().parked(), parked + 1);
  EXPECT_EQ(s.origins().loaded_count(), 1u) << Origin(7) << " has a URL in flight";
  EXPECT_EQ(s.origins().errors(), 0u);
}

// One URL of http://a.test leased and fetched, its final state not
// recorded yet.
Completion FetchOne(CrawlScheduler& s) {
  s.Enqueue("http://a.test/", "http://a.test", 0);
  auto items = s.Lease("f", 10);
  EXPECT_EQ(items.size(), 1u);
  return items.empty() ? Completion{} : s.Complete("f", Report(items[0]));
}

TEST(OriginParkingTest, AnOriginWaitsInRamForItsLateFinalStates) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("parking_late_final"));
  ASSERT_TRUE(store);
  SchedulerOptions o = Options();
  o.politeness.obey_robots = false;
  CrawlScheduler s(o, clock, store.get());
  const Completion c = FetchOne(s);
  // Done in RAM, its final state not recorded yet (the broker records it
  // once the page's links are admitted): its record still counts the URL
  // queued, so it stays.
  Commit(s, *store);
  EXPECT_EQ(s.origins().parked(), 0u);
  store->StageDequeued(c.origin_index, c.seq);
  s.RecordedFinal(c.origin_index, c.final_state);
  Commit(s, *store);
  EXPECT_EQ(s.origins().parked(), 1u);
  // It comes back with nothing queued.
  s.Enqueue("http://a.test/2", "http://a.test", 1);
  EXPECT_EQ(s.counts().waiting, 1u);
  auto items = s.Lease("f", 10);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].url(), "http://a.test/2");
  EXPECT_EQ(s.heads().errors(), 0u);
}

TEST(OriginParkingTest, AnOriginWaitsInRamForItsPolitenessTime) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("parking_politeness"));
  ASSERT_TRUE(store);
  SchedulerOptions o = Options();
  o.politeness.obey_robots = false;
  o.politeness.delay_ms = 10000;
  CrawlScheduler s(o, clock, store.get());
  const Completion c = FetchOne(s);
  store->StageDequeued(c.origin_index, c.seq);
  s.RecordedFinal(c.origin_index, c.final_state);
  // Recorded and written, but its next request may not start for 10 s: a
  // URL admitted now must still wait for it, so the slot keeps the time.
  Commit(s, *store);
  EXPECT_EQ(s.origins().parked(), 0u);
  clock.Advance(10000);
  Commit(s, *store, 1);
  EXPECT_EQ(s.origins().parked(), 1u);
  EXPECT_EQ(s.origins().loaded_count(), 0u);
}

TEST(OriginParkingTest, AResumedCrawlKeepsIdleOriginsParkedAndFindsThemByName) {
  FakeClock clock;
  const std::string dir = zcrawl::testing::MakeTempDir("parking_resume");
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store);
    CrawlScheduler s(Options(), clock, store.get());
    CrawlOut(s, *store, clock);
    s.Enqueue(Origin(3) + "/later", Origin(3), 1);  // still queued at the stop
    Commit(s, *store);
    ASSERT_EQ(s.origins().parked(), 499u);
  }
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  CrawlScheduler s(Options(), clock, store.get());
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& origin) { ASSERT_TRUE(s.RestoreOrigin(origin).ok()); }).ok());
  EXPECT_EQ(s.origins().known(), 500u);
  EXPECT_EQ(s.origins().loaded_count(), 1u) << "only the origin with a URL queued";
  EXPECT_EQ(s.origins().parked(), 499u);
  EXPECT_EQ(s.counts().waiting, 1u);
  EXPECT_EQ(s.FailingOrigins(10).size(), 10u) << "restored parked origins keep a status row";
  EXPECT_EQ(s.Admitted(Origin(400)), 2u);
  s.Enqueue(Origin(400) + "/new", Origin(400), 1);
  EXPECT_EQ(s.origins().known(), 500u);
  // An earlier run's rules are not trusted: robots.txt first.
  std::vector<std::string> urls = FetchAllDue(s, *store);
  EXPECT_EQ(urls.size(), 4u);
  EXPECT_NE(std::find(urls.begin(), urls.end(), Origin(400) + "/robots.txt"), urls.end());
  EXPECT_NE(std::find(urls.begin(), urls.end(), Origin(400) + "/new"), urls.end());
  EXPECT_NE(std::find(urls.begin(), urls.end(), Origin(3) + "/later"), urls.end());
}

// Each failing origin's last failure is in its record: after a resume the
// status and the summary still say why it failed, for an origin that stays
// parked, one loaded at once (URLs still queued) and a parked one loaded
// later; and the record has the latest failure, even one that changed no
// count (a fetch that will be retried).
TEST(OriginParkingTest, AFailingOriginKeepsItsLastFailureAcrossAResume) {
  FakeClock clock;
  const std::string dir = zcrawl::testing::MakeTempDir("parking_last_failure");
  SchedulerOptions o = Options();
  o.politeness.obey_robots = false;
  const std::string refused = "connection_refused (Failed to connect to b.test port 80)";
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store);
    CrawlScheduler s(o, clock, store.get());
    s.Enqueue("http://a.test/", "http://a.test", 0);
    s.Enqueue("http://a.test/gone", "http://a.test", 1);
    s.Enqueue("http://b.test/big", "http://b.test", 0);
    for (auto items = s.Lease("f", 10); !items.empty(); items = s.Lease("f", 10)) {
      for (const auto& item : items) {
        v1::FetchReport report = Report(item, item.url().ends_with("/gone") ? 404 : 200);
        if (item.url().ends_with("/big")) {
          report.set_status(v1::FETCH_STATUS_TOO_LARGE);
          report.set_cause("too_large");
        }
        const Completion c = s.Complete("f", report);
        ASSERT_NE(c.final_state, UrlState::kWaiting) << item.url();
        store->StageDequeued(c.origin_index, c.seq);
        s.RecordedFinal(c.origin_index, c.final_state);
      }
    }
    Commit(s, *store);
    ASSERT_EQ(s.origins().parked(), 2u) << "both, with nothing queued";
    // A later fetch of http://b.test (loaded again by it) fails too, and
    // waits for its retry at the stop: its URL still queued, its origin's
    // counts unchanged.
    s.Enqueue("http://b.test/later", "http://b.test", 1);
    const auto items = s.Lease("f", 10);
    ASSERT_EQ(items.size(), 1u);
    Commit(s, *store);  // its record as of the lease, written
    v1::FetchReport report = Report(items[0], 0, v1::FETCH_STATUS_NETWORK_ERROR);
    report.set_cause("connection_refused");
    report.set_error("Failed to connect to b.test port 80");
    ASSERT_EQ(s.Complete("f", report).final_state, UrlState::kWaiting) << "retried";
    Commit(s, *store);
    ASSERT_EQ(s.origins().parked(), 1u);
  }
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  CrawlScheduler s(o, clock, store.get());
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& origin) { ASSERT_TRUE(s.RestoreOrigin(origin).ok()); }).ok());
  ASSERT_EQ(s.origins().parked(), 1u);
  ASSERT_EQ(s.origins().loaded_count(), 1u);
  const auto last_failures = [&] {
    std::map<std::string, std::string> out;
    for (const auto& row : s.FailingOrigins(10)) out[row.host()] = row.last_failure();
    return out;
  };
  using Failures = std::map<std::string, std::string>;
  EXPECT_EQ(last_failures(), (Failures{{"http://a.test", "http_404"}, {"http://b.test", refused}}));
  // Loaded again (for its count), the parked one keeps it too.
  EXPECT_EQ(s.Admitted("http://a.test"), 2u);
  EXPECT_EQ(s.origins().parked(), 0u);
  EXPECT_EQ(last_failures(), (Failures{{"http://a.test", "http_404"}, {"http://b.test", refused}}));
}

TEST(OriginParkingTest, AStateWithoutTheNameIndexGetsOneWhenResumed) {
  FakeClock clock;
  const std::string dir = zcrawl::testing::MakeTempDir("parking_old_state");
  {
    // An older build's state: origin records, no name entries, no flag.
    auto store = OpenStore(dir);
    ASSERT_TRUE(store);
    store->SetMeta("created_at_ms", "1");
    store->EraseMeta("origin-names");
    for (uint32_t id = 0; id < 3; ++id) {
      store->StageOrigin(StoredOrigin{id, Origin(static_cast<int>(id)), /*next_seq=*/2, /*done=*/1, 0, 0});
    }
    ASSERT_TRUE(store->Flush().ok());
  }
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  ASSERT_FALSE(store->origin_names_indexed());
  CrawlScheduler s(Options(), clock, store.get());
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& origin) { ASSERT_TRUE(s.RestoreOrigin(origin).ok()); }).ok());
  StoredOrigin found;
  EXPECT_EQ(store->FindOrigin(Origin(1), &found).code(), StatusCode::kNotFound) << "staged, not written yet";
  store->MarkOriginNamesIndexed();  // as Broker::LoadState does
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_TRUE(store->FindOrigin(Origin(1), &found).ok());
  EXPECT_EQ(found.id, 1u);
  EXPECT_EQ(s.Admitted(Origin(2)), 1u);
  EXPECT_EQ(s.origins().known(), 3u);
  store.reset();
  EXPECT_TRUE(OpenStore(dir)->origin_names_indexed());
}

TEST(OriginParkingTest, ADamagedNameIndexIsReportedNotTrusted) {
  const std::string dir = zcrawl::testing::MakeTempDir("parking_damaged");
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  store->StageOrigin(StoredOrigin{0, "http://a.test", 1, 0, 0, 0});
  store->StageOriginName("http://a.test", 0);
  store->StageOriginName("http://b.test", 0);  // names another origin's id
  store->StageOriginName("http://c.test", 9);  // an id without a record
  ASSERT_TRUE(store->Flush().ok());
  StoredOrigin found;
  EXPECT_TRUE(store->FindOrigin("http://a.test", &found).ok());
  EXPECT_EQ(store->FindOrigin("http://b.test", &found).code(), StatusCode::kDataLoss);
  EXPECT_EQ(store->FindOrigin("http://c.test", &found).code(), StatusCode::kDataLoss);
  EXPECT_EQ(store->FindOrigin("http://d.test", &found).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace zcrawl::frontier

namespace zcrawl::frontier {
namespace {

// 100 origins of 20 URLs each, at most 10 in RAM, heads of 4: origins take
// turns of a head each, parking with the rest of their queue on disk and
// queueing for the next turn; with robots.txt on (rules spill before an
// origin parks) and off.
class OriginTurnsTest : public ::testing::TestWithParam<bool> {};

TEST_P(OriginTurnsTest, OriginsWithUrlsQueuedTakeTurnsWithinTheBoundOfOriginsInRam) {
  FakeClock clock;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("parking_turns"));
  ASSERT_TRUE(store);
  SchedulerOptions o = Options();
  o.politeness.obey_robots = GetParam();
  o.politeness.per_host = 2;
  o.heads.head_per_origin = 4;
  o.max_active_origins = 10;
  CrawlScheduler s(o, clock, store.get());
  constexpr int kOrigins = 100, kPerOrigin = 20;
  for (int i = 0; i < kPerOrigin; ++i) {
    for (int h = 0; h < kOrigins; ++h) s.Enqueue(Origin(h) + "/" + std::to_string(i), Origin(h), 0);
  }
  Commit(s, *store);
  std::map<std::string, int> leased_per_url;
  std::map<std::string, int> leased_per_origin;
  size_t most_active = 0;
  int most_leases_when_all_had_one = -1;
  int robots_leases = 0;
  uint64_t longest_line = 0;
  constexpr int kExtraRounds = 300;  // a link to some origin each round, parked or not
  for (int round = 0; round < 10000 && !s.Drained(); ++round) {
    if (round < kExtraRounds) {
      const int h = (round * 37) % kOrigins;
      s.Enqueue(Origin(h) + "/extra-" + std::to_string(round), Origin(h), 1);
    }
    for (const auto& item : s.Lease("f", 8)) {
      if (item.robots_only()) {
        ++robots_leases;
        v1::FetchReport report = Report(item);
        report.set_robots_txt("User-agent: *\nDisallow: /private\n");
        s.Complete("f", report);
        continue;
      }
      ++leased_per_url[item.url()];
      const std::string origin = item.url().substr(0, item.url().find('/', 8));
      ++leased_per_origin[origin];
      if (most_leases_when_all_had_one < 0 && leased_per_origin.size() == kOrigins) {
        for (const auto& [name, n] : leased_per_origin) most_leases_when_all_had_one = std::max(most_leases_when_all_had_one, n);
      }
      const Completion c = s.Complete("f", Report(item));
      store->StageDequeued(c.origin_index, c.seq);
      s.RecordedFinal(c.origin_index, c.final_state);
    }
    Commit(s, *store, 1);
    most_active = std::max(most_active, s.origins().loaded_count());
    longest_line = std::max(longest_line, s.origins().in_line());
  }
  ASSERT_TRUE(s.Drained());
  EXPECT_EQ(leased_per_url.size(), size_t{kOrigins} * kPerOrigin + kExtraRounds) << "every URL leased";
  EXPECT_LE(longest_line, uint64_t{kOrigins}) << "an origin loaded by a URL keeps one place in line";
  for (const auto& [url, n] : leased_per_url) ASSERT_EQ(n, 1) << url << " leased once";
  EXPECT_LE(most_active, 10u + 2) << "the bound, the one loaded before a turn ends, the one a URL loaded";
  EXPECT_GE(s.origins().yields(), uint64_t{kOrigins} * (kPerOrigin / 4 - 1)) << "a turn is a head of 4";
  // Turns go round: no origin had more than a few turns before the last
  // had its first.
  EXPECT_LE(most_leases_when_all_had_one, 3 * 4);
  EXPECT_EQ(s.heads().errors(), 0u);
  EXPECT_EQ(s.counts().done, uint64_t{kOrigins} * kPerOrigin + kExtraRounds);
  Commit(s, *store);
  EXPECT_EQ(s.origins().loaded_count(), 0u) << "finished, every origin parks";
  if (GetParam()) {
    EXPECT_EQ(robots_leases, kOrigins) << "each robots.txt asked once: the rules come back with each turn";
    EXPECT_GE(s.robots().reloaded(), uint64_t{kOrigins} * 3);
    EXPECT_EQ(s.robots().reload_misses(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Robots, OriginTurnsTest, ::testing::Bool());

// A resumed crawl with more origins queued than RAM may hold loads the
// bound and queues the rest; every URL is still leased once.
TEST(OriginParkingTest, AResumeLoadsTheBoundOfOriginsAndQueuesTheRest) {
  FakeClock clock;
  const std::string dir = zcrawl::testing::MakeTempDir("parking_resume_line");
  SchedulerOptions o = Options();
  o.politeness.obey_robots = false;
  o.heads.head_per_origin = 4;
  o.max_active_origins = 5;
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store);
    CrawlScheduler s(o, clock, store.get());
    for (int h = 0; h < 30; ++h) {
      for (int i = 0; i < 6; ++i) s.Enqueue(Origin(h) + "/" + std::to_string(i), Origin(h), 0);
    }
    Commit(s, *store);
  }
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  CrawlScheduler s(o, clock, store.get());
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& origin) { ASSERT_TRUE(s.RestoreOrigin(origin).ok()); }).ok());
  EXPECT_EQ(s.origins().loaded_count(), 5u);
  EXPECT_EQ(s.origins().in_line(), 25u);
  EXPECT_EQ(s.counts().waiting, 180u);
  std::set<std::string> leased;
  for (int round = 0; round < 1000 && !s.Drained(); ++round) {
    for (const auto& item : s.Lease("f", 8)) {
      EXPECT_TRUE(leased.insert(item.url()).second) << item.url();
      const Completion c = s.Complete("f", Report(item));
      store->StageDequeued(c.origin_index, c.seq);
      s.RecordedFinal(c.origin_index, c.final_state);
    }
    Commit(s, *store, 1);
  }
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(leased.size(), 180u);
}

}  // namespace
}  // namespace zcrawl::frontier

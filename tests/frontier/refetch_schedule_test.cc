// RefetchSchedule over a real UrlStore: due URLs come out earliest first and
// never early, each once, across a reopening of the store; the state a
// lease carries is kept beside; an origin's refetch count round-trips.
#include "frontier/scheduler/refetch_schedule.h"
#include "frontier/store/url_canonicalizer.h"

#include <gtest/gtest.h>

#include <climits>

#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

using zcrawl::testing::MakeTempDir;

std::unique_ptr<UrlStore> OpenOrDie(const std::string& dir) {
  UrlStoreOptions options;
  options.dir = dir;
  auto store = UrlStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(*store) : nullptr;
}

std::vector<std::string> Urls(const std::vector<ScheduledUrl>& due) {
  std::vector<std::string> out;
  for (const auto& url : due) out.push_back(url.url);
  return out;
}

TEST(RefetchScheduleTest, DueUrlsComeOutEarliestFirstNeverEarlyAndOnceAcrossAReopening) {
  const std::string dir = MakeTempDir("refetch_schedule");
  v1::Validators state;
  state.set_etag("\"e1\"");
  state.set_refetch_interval_ms(5000);
  {
    auto store = OpenOrDie(dir);
    ASSERT_TRUE(store);
    RefetchSchedule schedule(*store);
    schedule.Schedule({"http://a.test/late", 1, 0, 0}, 3000, state);
    schedule.Schedule({"http://a.test/early", 2, 1, 0}, 1000, state);
    schedule.Schedule({"http://cdn.test/f.woff2", 3, 0, 2}, 2000, state);
    std::vector<ScheduledUrl> due;
    ASSERT_TRUE(schedule.TakeDue(999, 10, &due).ok());
    EXPECT_TRUE(due.empty());
    EXPECT_EQ(schedule.next_due_wall_ms(), 1000);
    ASSERT_TRUE(schedule.TakeDue(2000, 10, &due).ok());
    EXPECT_EQ(Urls(due), (std::vector<std::string>{"http://a.test/early", "http://cdn.test/f.woff2"}));
    EXPECT_EQ(due[0].depth, 2u);
    EXPECT_EQ(due[0].redirect_hops, 1u);
    EXPECT_EQ(due[1].embed_hops, 2u);
    EXPECT_EQ(schedule.next_due_wall_ms(), 3000);
    // Taken ones are gone.
    due.clear();
    ASSERT_TRUE(schedule.TakeDue(2000, 10, &due).ok());
    EXPECT_TRUE(due.empty());
    ASSERT_TRUE(store->Flush().ok());
  }
  auto store = OpenOrDie(dir);
  ASSERT_TRUE(store);
  RefetchSchedule schedule(*store);
  EXPECT_EQ(schedule.next_due_wall_ms(), 0) << "unknown until the first look";
  std::vector<ScheduledUrl> due;
  ASSERT_TRUE(schedule.TakeDue(2999, 10, &due).ok());
  EXPECT_TRUE(due.empty());
  EXPECT_EQ(schedule.next_due_wall_ms(), 3000);
  ASSERT_TRUE(schedule.TakeDue(10'000, 10, &due).ok());
  EXPECT_EQ(Urls(due), std::vector<std::string>{"http://a.test/late"});
  EXPECT_EQ(schedule.next_due_wall_ms(), INT64_MAX);
  std::string stored;
  ASSERT_TRUE(store->GetValidators(UrlCanonicalizer().KeyOf("http://a.test/late"), &stored));
  v1::Validators read;
  ASSERT_TRUE(read.ParseFromString(stored));
  EXPECT_EQ(read.etag(), "\"e1\"");
  EXPECT_EQ(read.refetch_interval_ms(), 5000);
}

TEST(RefetchScheduleTest, AScanTakesAtMostItsShareAndSaysMoreAreDue) {
  auto store = OpenOrDie(MakeTempDir("refetch_schedule_max"));
  ASSERT_TRUE(store);
  RefetchSchedule schedule(*store);
  for (int i = 0; i < 5; ++i) schedule.Schedule({"http://a.test/" + std::to_string(i), 0, 0, 0}, 100 + i, {});
  std::vector<ScheduledUrl> due;
  ASSERT_TRUE(schedule.TakeDue(1000, 3, &due).ok());
  EXPECT_EQ(due.size(), 3u);
  EXPECT_EQ(schedule.next_due_wall_ms(), 1000) << "the rest is due now";
  ASSERT_TRUE(schedule.TakeDue(1000, 3, &due).ok());
  EXPECT_EQ(Urls(due), (std::vector<std::string>{"http://a.test/0", "http://a.test/1", "http://a.test/2",
                                                 "http://a.test/3", "http://a.test/4"}));
}

TEST(RefetchScheduleTest, AMalformedEntryIsCountedAndRemovedNotReturned) {
  auto store = OpenOrDie(MakeTempDir("refetch_schedule_bad"));
  ASSERT_TRUE(store);
  RefetchSchedule schedule(*store);
  store->SetMeta(std::string("refetch/") + std::string(8, '\0') + "short", "x");
  schedule.Schedule({"http://a.test/ok", 0, 0, 0}, 50, {});
  std::vector<ScheduledUrl> due;
  ASSERT_TRUE(schedule.TakeDue(100, 10, &due).ok());
  EXPECT_EQ(Urls(due), std::vector<std::string>{"http://a.test/ok"});
  EXPECT_EQ(schedule.malformed(), 1u);
  due.clear();
  ASSERT_TRUE(schedule.TakeDue(100, 10, &due).ok());
  EXPECT_TRUE(due.empty());
  EXPECT_EQ(schedule.malformed(), 1u);
}

TEST(RefetchScheduleTest, AnOriginsRefetchCountRoundTripsAndOldRecordsReadAsNone) {
  const std::string dir = MakeTempDir("refetch_origins");
  {
    auto store = OpenOrDie(dir);
    ASSERT_TRUE(store);
    store->StageOrigin({0, "http://a.test", 11, 6, 1, 0});
    store->StageOrigin({1, "http://b.test", 9, 2, 0, 5});
    ASSERT_TRUE(store->Flush().ok());
  }
  auto store = OpenOrDie(dir);
  ASSERT_TRUE(store);
  std::vector<StoredOrigin> origins;
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& o) { origins.push_back(std::move(o)); }).ok());
  ASSERT_EQ(origins.size(), 2u);
  EXPECT_EQ(origins[0].origin, "http://a.test");
  EXPECT_EQ(origins[0].refetched, 0u);
  EXPECT_EQ(origins[0].admitted(), 10u);
  EXPECT_EQ(origins[1].origin, "http://b.test");
  EXPECT_EQ(origins[1].refetched, 5u);
  EXPECT_EQ(origins[1].admitted(), 3u);
  EXPECT_EQ(origins[1].queued(), 6u);
}

}  // namespace
}  // namespace zcrawl::frontier

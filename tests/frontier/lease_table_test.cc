// LeaseTable: the atomic claim (a report counts only for the holder of the
// lease it names), expiry in deadline order, and per-fetcher returns.
#include "frontier/scheduler/lease_table.h"

#include <gtest/gtest.h>

#include <climits>
#include <unordered_set>

namespace zcrawl::frontier {
namespace {

ActiveLease LeaseOf(const std::string& url, const std::string& fetcher, int64_t deadline_ms) {
  ActiveLease lease;
  lease.record.url = url;
  lease.fetcher = fetcher;
  lease.deadline_ms = deadline_ms;
  return lease;
}

TEST(LeaseTableTest, AReportCountsOnlyForTheHolderOfTheLeaseItNamesAndOnlyOnce) {
  LeaseTable table;
  const uint64_t id = table.Add(LeaseOf("http://a/1", "f1", 100));
  EXPECT_FALSE(table.TakeMatching(id, "http://a/1", "f2")) << "another fetcher";
  EXPECT_FALSE(table.TakeMatching(id, "http://a/2", "f1")) << "another URL";
  EXPECT_FALSE(table.TakeMatching(id + 1, "http://a/1", "f1")) << "another lease";
  EXPECT_EQ(table.size(), 1u) << "a report that does not match changes nothing";
  auto taken = table.TakeMatching(id, "http://a/1", "f1");
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->record.url, "http://a/1");
  EXPECT_FALSE(table.TakeMatching(id, "http://a/1", "f1")) << "the second claim finds nothing";
  EXPECT_FALSE(table.Take(id));
  EXPECT_TRUE(table.empty());
}

TEST(LeaseTableTest, LeaseIdsOfTwoRunsDoNotMeet) {
  LeaseTable first, second;
  EXPECT_NE(first.epoch(), second.epoch()) << "a random epoch per run (1 in 2^24 may collide)";
  EXPECT_EQ(first.Add(LeaseOf("u", "f", 1)), first.epoch());
}

TEST(LeaseTableTest, LeasesExpireInDeadlineOrderAndATakenOneNever) {
  LeaseTable table;
  const uint64_t late = table.Add(LeaseOf("late", "f", 300));
  const uint64_t early = table.Add(LeaseOf("early", "f", 100));
  const uint64_t answered = table.Add(LeaseOf("answered", "f", 50));
  ASSERT_TRUE(table.Take(answered));
  EXPECT_EQ(table.NextDeadlineMs(), 50) << "a taken lease's entry may stand in: early, never late";
  EXPECT_FALSE(table.NextExpired(99)) << "the answered lease is skipped, the next is not due";
  EXPECT_EQ(table.NextExpired(100), early);
  ASSERT_TRUE(table.Take(early));
  EXPECT_FALSE(table.NextExpired(299));
  EXPECT_EQ(table.NextExpired(1000), late);
  ASSERT_TRUE(table.Take(late));
  EXPECT_EQ(table.NextDeadlineMs(), INT64_MAX);
}

TEST(LeaseTableTest, ExtendingGivesEveryLeaseAtLeastTheNewDeadline) {
  LeaseTable table;
  const uint64_t short_lease = table.Add(LeaseOf("a", "f", 100));
  const uint64_t long_lease = table.Add(LeaseOf("b", "f", 900));
  table.ExtendAll(500);
  EXPECT_EQ(table.Find(short_lease)->deadline_ms, 500);
  EXPECT_EQ(table.Find(long_lease)->deadline_ms, 900) << "never shortened";
  EXPECT_FALSE(table.NextExpired(499));
  EXPECT_EQ(table.NextExpired(500), short_lease);
}

TEST(LeaseTableTest, AFetchersLeasesAreFoundLessThoseItStillHolds) {
  LeaseTable table;
  const uint64_t a = table.Add(LeaseOf("a", "f1", 100));
  const uint64_t b = table.Add(LeaseOf("b", "f1", 100));
  table.Add(LeaseOf("c", "f2", 100));
  EXPECT_EQ(table.CountOf("f1"), 2u);
  EXPECT_EQ(table.IdsOf("f1").size(), 2u);
  const std::unordered_set<uint64_t> held = {a};
  EXPECT_EQ(table.IdsOf("f1", &held), std::vector<uint64_t>{b});
  EXPECT_TRUE(table.IdsOf("f3").empty());
}

}  // namespace
}  // namespace zcrawl::frontier

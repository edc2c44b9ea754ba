// OriginTable: origins get ids once, park when nothing of theirs is due and
// the store holds their record, come back exact, and wait their turn in
// line when RAM holds as many as it may.
#include "frontier/scheduler/origin_table.h"

#include <gtest/gtest.h>

#include "tests/frontier/scheduler_test_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

// An OriginTable with the parts it touches.
struct Table {
  explicit Table(UrlStore* store, uint64_t max_active = UINT64_MAX)
      : heads(QueueHeadLimits{}, store, memory),
        robots({"zcrawl"}, store, clock, memory, 1),
        origins(OriginTableOptions{PolitenessOptions{.delay_ms = 0, .obey_robots = false}, max_active}, store, clock, memory,
                heads, robots, board) {}
  // The broker's commits: stage, write, until the writes are settled.
  void Commit(UrlStore& store) {
    for (int i = 0; i < 3; ++i) {
      origins.StageDirty();
      ASSERT_TRUE(store.Flush().ok());
    }
  }
  FakeClock clock;
  OriginMemory memory;
  QueueHeads heads;
  RobotsKeeper robots;
  OriginStatusBoard board;
  OriginTable origins;
};

TEST(OriginTableTest, AnOriginGetsOneIdAndANewOneTheNext) {
  Table t(nullptr);
  EXPECT_EQ(t.origins.IdFor("http://a.test"), 0u);
  EXPECT_EQ(t.origins.IdFor("http://b.test"), 1u);
  EXPECT_EQ(t.origins.IdFor("http://a.test"), 0u);
  EXPECT_EQ(t.origins.known(), 2u);
  EXPECT_EQ(t.origins.Find("http://c.test"), nullptr);
  EXPECT_GE(t.origins.bytes(), 2 * OriginMemory::kSlotBytes);
}

TEST(OriginTableTest, AnIdleOriginParksOnceItsRecordIsWrittenAndComesBackExact) {
  auto store = OpenStore(zcrawl::testing::MakeTempDir("origin_table_park"));
  ASSERT_TRUE(store);
  Table t(store.get());
  const uint32_t id = t.origins.IdFor("http://a.test");
  HostSlot& slot = t.origins.Slot(id);
  // One URL admitted and done, its final state recorded.
  slot.next_seq = 2;
  slot.done = 1;
  t.origins.RecordedFinal(id, UrlState::kDone);
  t.origins.SetLastFailure(slot, "http_503");
  t.Commit(*store);
  EXPECT_EQ(t.origins.loaded_count(), 0u) << "parked";
  EXPECT_EQ(t.origins.parked(), 1u);
  EXPECT_EQ(t.origins.Loaded(id), nullptr);
  EXPECT_EQ(t.origins.Admitted("http://a.test"), 1u) << "read back from the store";
  HostSlot* back = t.origins.Loaded(id);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->done, 1u);
  EXPECT_EQ(back->LastFailure(), "http_503");
  EXPECT_EQ(t.origins.unparked(), 1u);
}

TEST(OriginTableTest, AnOriginWithUrlsInFlightDoesNotPark) {
  auto store = OpenStore(zcrawl::testing::MakeTempDir("origin_table_busy"));
  ASSERT_TRUE(store);
  Table t(store.get());
  HostSlot& slot = t.origins.Slot(t.origins.IdFor("http://a.test"));
  slot.next_seq = 2;
  slot.in_flight = 1;
  t.Commit(*store);
  EXPECT_EQ(t.origins.loaded_count(), 1u);
  EXPECT_EQ(t.origins.parked(), 0u);
}

TEST(OriginTableTest, PastTheBoundAYieldingOriginWaitsInLineForItsTurn) {
  auto store = OpenStore(zcrawl::testing::MakeTempDir("origin_table_line"));
  ASSERT_TRUE(store);
  Table t(store.get(), /*max_active=*/1);
  const uint32_t a = t.origins.IdFor("http://a.test");
  // a has a URL queued on disk (its record counts it queued).
  HostSlot& slot = t.origins.Slot(a);
  slot.next_seq = 2;
  store->StageQueued(a, slot.origin, QueuedUrl{1, "http://a.test/1", 0, 0, 0, 0});
  t.heads.SetBacklog(slot, 1);
  EXPECT_FALSE(t.origins.MustYield()) << "one origin in RAM, none waiting";
  const uint32_t b = t.origins.IdFor("http://b.test");
  EXPECT_TRUE(t.origins.Slot(b).yielding) << "past the bound a new origin yields";
  EXPECT_TRUE(t.origins.MustYield());
  EXPECT_EQ(t.origins.NextLineMs(), INT64_MAX) << "nobody in line";
  t.origins.Yield(t.origins.Slot(a));
  t.Commit(*store);
  EXPECT_EQ(t.origins.in_line(), 1u) << "a parked with its URL on disk, in line";
  EXPECT_EQ(t.origins.yields(), 1u);
  // b had nothing queued: it parked idle, so RAM has room for a's turn.
  ASSERT_EQ(t.origins.loaded_count(), 0u);
  EXPECT_EQ(t.origins.NextLineMs(), t.clock.NowMs());
  EXPECT_EQ(t.origins.LoadWaiting(), std::vector<uint32_t>{a});
  EXPECT_EQ(t.origins.in_line(), 0u);
  EXPECT_EQ(t.origins.Loaded(a)->backlog, 1u) << "its URL still on disk";
  EXPECT_FALSE(t.origins.Loaded(a)->yielding) << "its turn";
}

TEST(OriginTableTest, ARestoredStateOutOfOrderIsRefused) {
  Table t(nullptr);
  StoredOrigin first;
  first.id = 0;
  first.origin = "http://a.test";
  first.next_seq = 1;
  bool loaded = false;
  ASSERT_TRUE(t.origins.Restore(first, &loaded).ok());
  StoredOrigin skipped = first;
  skipped.id = 2;
  skipped.origin = "http://c.test";
  EXPECT_EQ(t.origins.Restore(skipped, &loaded).code(), StatusCode::kDataLoss);
  StoredOrigin repeated = first;
  repeated.id = 1;
  EXPECT_EQ(t.origins.Restore(repeated, &loaded).code(), StatusCode::kDataLoss) << "a name twice";
}

}  // namespace
}  // namespace zcrawl::frontier

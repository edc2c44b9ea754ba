// QueueHeads: the heads' RAM figures stay exact through every change, and
// a refill loads the next part of a disk backlog within the heads' budget.
#include "frontier/scheduler/queue_heads.h"

#include <gtest/gtest.h>

#include "tests/frontier/scheduler_test_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

UrlRecord Record(uint32_t origin, uint64_t seq, const std::string& path) {
  return UrlRecord{"http://a.test" + path, origin, 0, 0, seq};
}

TEST(QueueHeadsTest, TheFiguresStayExactThroughEveryChange) {
  OriginMemory memory;
  QueueHeads heads(QueueHeadLimits{64, /*max_loaded=*/3, UINT64_MAX}, nullptr, memory);
  HostSlot slot;
  slot.origin = "http://a.test";
  heads.PushBack(slot, Record(0, 1, "/one"));
  heads.PushFront(slot, Record(0, 2, "/two"));
  heads.Insert(slot, 1, Record(0, 3, "/three"));
  EXPECT_EQ(heads.loaded(), 3u);
  EXPECT_EQ(heads.head_bytes(), slot.waiting.bytes());
  EXPECT_TRUE(heads.Full()) << "at max_loaded";
  EXPECT_EQ(heads.Room(), 0u);
  EXPECT_EQ(heads.PopFront(slot).url, "http://a.test/two");
  EXPECT_EQ(heads.PopFront(slot).url, "http://a.test/three") << "inserted at 1";
  EXPECT_FALSE(heads.Full());
  EXPECT_EQ(heads.Room(), 2u);
  heads.Clear(slot);
  EXPECT_EQ(heads.loaded(), 0u);
  EXPECT_EQ(heads.head_bytes(), 0u);
}

TEST(QueueHeadsTest, BackloggedOriginsAreCountedOncePerOrigin) {
  OriginMemory memory;
  QueueHeads heads(QueueHeadLimits{}, nullptr, memory);
  HostSlot a, b;
  heads.SetBacklog(a, 5);
  heads.SetBacklog(a, 9);
  heads.SetBacklog(b, 1);
  EXPECT_EQ(heads.backlogged_origins(), 2u);
  heads.SetBacklog(a, 0);
  EXPECT_EQ(heads.backlogged_origins(), 1u);
}

TEST(QueueHeadsTest, ARefillLoadsTheBacklogInOrderAFairShareAtATime) {
  auto store = OpenStore(zcrawl::testing::MakeTempDir("queue_heads_refill"));
  ASSERT_TRUE(store);
  OriginMemory memory;
  // Room for 8 URLs over two backlogged origins: a fair share is 4.
  QueueHeads heads(QueueHeadLimits{64, 8, UINT64_MAX}, store.get(), memory);
  HostSlot a, b;
  a.id = 0, a.origin = "http://a.test";
  b.id = 1, b.origin = "http://b.test";
  for (uint64_t seq = 1; seq <= 10; ++seq) {
    store->StageQueued(a.id, a.origin, QueuedUrl{seq, a.origin + "/" + std::to_string(seq), 0, 0, 0, 0});
  }
  ASSERT_TRUE(store->Flush().ok());
  heads.SetBacklog(a, 10);
  heads.SetBacklog(b, 3);
  EXPECT_EQ(heads.RefillSize(), 4u);
  const QueueHeads::Refill refill = heads.RefillHead(a);
  EXPECT_FALSE(refill.failed);
  EXPECT_EQ(refill.missing, 0u);
  ASSERT_EQ(a.waiting.size(), 4u);
  EXPECT_EQ(a.backlog, 6u);
  EXPECT_EQ(a.loaded_seq, 4u);
  EXPECT_EQ(heads.PopFront(a).url, "http://a.test/1") << "admission order";
  EXPECT_EQ(heads.refills(), 1u);
  // b's record promised 3 URLs the disk does not hold: counted gone, not
  // waited for.
  const QueueHeads::Refill empty = heads.RefillHead(b);
  EXPECT_EQ(empty.missing, 3u);
  EXPECT_EQ(b.backlog, 0u);
  EXPECT_EQ(heads.errors(), 1u);
  EXPECT_EQ(heads.backlogged_origins(), 1u);
}

}  // namespace
}  // namespace zcrawl::frontier

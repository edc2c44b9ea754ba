// NotifyingQueue: every pushed item reaches the consumer, and the eventfd
// is readable exactly while something may be waiting (no lost wake-ups,
// even though only a push into an empty queue signals).
#include "common/notifying_queue.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <thread>
#include <vector>

namespace zcrawl {
namespace {

bool Readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

TEST(NotifyingQueueTest, PushIntoEmptyQueueWakesAndDrainTakesEverything) {
  NotifyingQueue<int> queue;
  EXPECT_FALSE(Readable(queue.fd(), 0));
  for (int i = 0; i < 5; ++i) queue.Push(i);
  EXPECT_TRUE(Readable(queue.fd(), 0));
  std::vector<int> out;
  queue.Drain(out);
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(Readable(queue.fd(), 0)) << "drained, yet still signalled";
  queue.Push(9);
  EXPECT_TRUE(Readable(queue.fd(), 0)) << "a push after a drain must wake the loop again";
  out.clear();
  queue.Drain(out);
  EXPECT_EQ(out, (std::vector<int>{9}));
}

TEST(NotifyingQueueTest, ManyProducersNeverLeaveItemsWithoutAWakeUp) {
  NotifyingQueue<int> queue;
  constexpr int kProducers = 4;
  constexpr int kEach = 20000;
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&queue, p] {
      for (int i = 0; i < kEach; ++i) queue.Push(p * kEach + i);
    });
  }
  // The consumer only drains when the fd says so, like the event loops;
  // a lost wake-up leaves items behind and the poll times out.
  std::vector<int> out;
  std::vector<int> seen(kProducers * kEach, 0);
  size_t total = 0;
  while (total < seen.size()) {
    ASSERT_TRUE(Readable(queue.fd(), 5000)) << "items left without a wake-up after " << total;
    out.clear();
    queue.Drain(out);
    for (int v : out) ++seen[v];
    total += out.size();
  }
  for (auto& t : producers) t.join();
  out.clear();
  queue.Drain(out);
  EXPECT_TRUE(out.empty());
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "item " << i;
}

}  // namespace
}  // namespace zcrawl

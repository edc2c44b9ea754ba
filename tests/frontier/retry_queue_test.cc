// RetryQueue: URLs come out when their time comes, ties in arrival order.
#include "frontier/scheduler/retry_queue.h"

#include <gtest/gtest.h>

#include <climits>

namespace zcrawl::frontier {
namespace {

UrlRecord Record(const std::string& url) {
  UrlRecord record;
  record.url = url;
  return record;
}

TEST(RetryQueueTest, UrlsComeOutWhenTheirTimeComesTiesInArrivalOrder) {
  RetryQueue queue;
  EXPECT_EQ(queue.NextReadyMs(), INT64_MAX);
  queue.Push(Record("late"), 300);
  queue.Push(Record("first"), 100);
  queue.Push(Record("second"), 100);
  EXPECT_EQ(queue.size(), 3u);
  EXPECT_EQ(queue.NextReadyMs(), 100);
  EXPECT_FALSE(queue.PopDue(99)) << "nothing before its time";
  EXPECT_EQ(queue.PopDue(100)->url, "first");
  EXPECT_EQ(queue.PopDue(100)->url, "second");
  EXPECT_FALSE(queue.PopDue(299));
  EXPECT_EQ(queue.NextReadyMs(), 300);
  EXPECT_EQ(queue.PopDue(1000)->url, "late");
  EXPECT_EQ(queue.size(), 0u);
}

}  // namespace
}  // namespace zcrawl::frontier

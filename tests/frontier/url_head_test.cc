// UrlHead: an origin's in-RAM queue head behaves as the std::deque it
// replaced, across pops, returns to the front and its compactions, and
// holds no memory when empty.
#include "frontier/url_head.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>

#include "frontier/host_slot.h"

namespace zcrawl::frontier {
namespace {

UrlRecord Record(uint64_t seq) { return UrlRecord{"http://a.test/" + std::to_string(seq), 0, 0, 0, seq}; }

TEST(UrlHeadTest, AgreesWithADequeOverRandomOperations) {
  std::mt19937_64 random(17);
  UrlHead head;
  std::deque<uint64_t> reference;
  uint64_t next = 1;
  for (int step = 0; step < 200000; ++step) {
    const int op = static_cast<int>(random() % 10);
    if (op < 5) {
      head.push_back(Record(next));
      reference.push_back(next++);
    } else if (op < 9 && !reference.empty()) {
      ASSERT_EQ(head.front().seq, reference.front()) << "step " << step;
      ASSERT_EQ(head.front().url, "http://a.test/" + std::to_string(reference.front()));
      head.pop_front();
      reference.pop_front();
    } else if (op == 9 && !reference.empty()) {
      // A lease that comes back: popped, then returned to the front.
      UrlRecord back = std::move(head.front());
      head.pop_front();
      head.push_front(std::move(back));
    }
    ASSERT_EQ(head.size(), reference.size());
    ASSERT_EQ(head.empty(), reference.empty());
  }
  size_t i = 0;
  for (const UrlRecord& record : head) ASSERT_EQ(record.seq, reference[i++]);
  EXPECT_EQ(i, reference.size());
}

TEST(UrlHeadTest, ADrainedHeadGivesItsMemoryBack) {
  UrlHead head;
  for (uint64_t seq = 1; seq <= 1000; ++seq) head.push_back(Record(seq));
  for (uint64_t seq = 1; seq <= 1000; ++seq) {
    ASSERT_EQ(head.front().seq, seq);
    head.pop_front();
  }
  EXPECT_TRUE(head.empty());
  // What a broad crawl's idle origins cost: no heap, and a small slot.
  EXPECT_EQ(sizeof(UrlHead), sizeof(std::vector<UrlRecord>) + sizeof(size_t));
  EXPECT_LT(sizeof(HostSlot), 400u) << "a HostSlot is kept per known origin";
  head.push_front(Record(7));  // empty again: push_front still works
  EXPECT_EQ(head.front().seq, 7u);
}

}  // namespace
}  // namespace zcrawl::frontier

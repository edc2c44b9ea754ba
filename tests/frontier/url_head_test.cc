// UrlHead: an origin's in-RAM queue head behaves as the std::deque of
// records it replaced, across pops, returns to the front, insertions and
// its compactions, keeps every field of every record, and holds RAM in
// proportion to what it holds: nothing when empty, its records packed.
#include "frontier/scheduler/url_head.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <random>
#include <string>

#include "frontier/scheduler/host_slot.h"
#include "frontier/store/queued_url_codec.h"

namespace zcrawl::frontier {
namespace {

constexpr std::string_view kOrigin = "http://a.test";
constexpr uint32_t kSlot = 7;

UrlRecord Record(uint64_t seq, std::mt19937_64& random) {
  UrlRecord record;
  record.seq = seq;
  record.origin = kSlot;
  // Most URLs are under the origin; some are not (stored whole), some
  // are long.
  const int shape = static_cast<int>(random() % 10);
  if (shape == 0) {
    record.url = "https://elsewhere.test/" + std::to_string(seq);
  } else if (shape == 1) {
    record.url = std::string(kOrigin) + "/" + std::string(200 + random() % 300, 'x') + std::to_string(seq);
  } else {
    record.url = std::string(kOrigin) + "/" + std::to_string(seq);
  }
  record.depth = static_cast<uint32_t>(random() % 1000);
  record.attempts = static_cast<uint32_t>(random() % 5);
  record.redirect_hops = static_cast<uint32_t>(random() % (kMaxStoredRedirectHops + 1));
  record.embed_hops = static_cast<uint32_t>(random() % (kMaxStoredEmbedHops + 1));
  return record;
}

void ExpectSame(const UrlRecord& got, const UrlRecord& want, int step) {
  ASSERT_EQ(got.seq, want.seq) << "step " << step;
  ASSERT_EQ(got.url, want.url) << "step " << step;
  ASSERT_EQ(got.origin, kSlot);
  ASSERT_EQ(got.depth, want.depth);
  ASSERT_EQ(got.attempts, want.attempts);
  ASSERT_EQ(got.redirect_hops, want.redirect_hops);
  ASSERT_EQ(got.embed_hops, want.embed_hops);
}

TEST(UrlHeadTest, AgreesWithADequeOverRandomOperations) {
  std::mt19937_64 random(17);
  UrlHead head;
  std::deque<UrlRecord> reference;
  uint64_t next = 1;
  size_t inserts = 0, returns = 0, most = 0;
  for (int step = 0; step < 200000; ++step) {
    const int op = static_cast<int>(random() % 20);
    if (op < 9) {
      UrlRecord record = Record(next++, random);
      head.push_back(kOrigin, record);
      reference.push_back(record);
    } else if (op < 17 && !reference.empty()) {
      ExpectSame(head.front(kOrigin, kSlot), reference.front(), step);
      ExpectSame(head.pop_front(kOrigin, kSlot), reference.front(), step);
      reference.pop_front();
    } else if (op == 17 && !reference.empty()) {
      // A lease that comes back: popped, then returned to the front.
      UrlRecord back = head.pop_front(kOrigin, kSlot);
      head.push_front(kOrigin, back);
      ++returns;
    } else if (op >= 18) {
      // A requisite put a few places behind the front.
      const size_t index = reference.empty() ? 0 : random() % std::min<size_t>(reference.size() + 1, 5);
      UrlRecord record = Record(next++, random);
      head.insert(index, kOrigin, record);
      reference.insert(reference.begin() + static_cast<std::ptrdiff_t>(index), record);
      ++inserts;
    }
    ASSERT_EQ(head.size(), reference.size());
    ASSERT_EQ(head.empty(), reference.empty());
    most = std::max(most, reference.size());
  }
  size_t i = 0;
  head.ForEach(kOrigin, kSlot, [&](UrlRecord&& record) { ExpectSame(record, reference[i++], -1); });
  EXPECT_EQ(i, reference.size());
  EXPECT_GT(inserts, 1000u);
  EXPECT_GT(returns, 1000u);
  EXPECT_GT(most, 100u) << "the head never held enough to compact";
}

TEST(UrlHeadTest, ADrainedHeadGivesItsMemoryBack) {
  std::mt19937_64 random(3);
  UrlHead head;
  for (uint64_t seq = 1; seq <= 1000; ++seq) head.push_back(kOrigin, Record(seq, random));
  for (uint64_t seq = 1; seq <= 1000; ++seq) ASSERT_EQ(head.pop_front(kOrigin, kSlot).seq, seq);
  EXPECT_TRUE(head.empty());
  EXPECT_EQ(head.bytes(), 0u);
  // What a broad crawl's idle origins cost: no heap, and a small slot.
  EXPECT_LE(sizeof(UrlHead), 48u);
  EXPECT_LT(sizeof(HostSlot), 400u) << "a HostSlot is kept per known origin";
  head.push_front(kOrigin, Record(7, random));  // empty again: push_front still works
  EXPECT_EQ(head.front(kOrigin, kSlot).seq, 7u);
}

TEST(UrlHeadTest, AHeadHoldsRamInProportionToItsRecords) {
  UrlHead head;
  // A synthetic-web URL: 16 hex digits under its origin.
  auto url = [](uint64_t seq) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(seq * 0x9E3779B97F4A7C15ull));
    return std::string(kOrigin) + "/" + hex;
  };
  for (uint64_t seq = 1; seq <= 4096; ++seq) head.push_back(kOrigin, UrlRecord{url(seq), kSlot, 3, 0, seq});
  // Packed: seq, length, depth, attempts, flags and 17 bytes of path; the
  // buffer at most doubles that.
  EXPECT_LE(head.bytes(), 4096u * 2 * 25);
  // Drained to a few, it gives the rest back (a vector keeps its peak
  // capacity unless told otherwise).
  for (uint64_t seq = 1; seq <= 4090; ++seq) ASSERT_EQ(head.pop_front(kOrigin, kSlot).seq, seq);
  EXPECT_LE(head.bytes(), 6u * 25 * 2 + 256 * 2) << "the head kept its peak capacity";
  for (uint64_t seq = 4091; seq <= 4096; ++seq) ASSERT_EQ(head.pop_front(kOrigin, kSlot).url, url(seq));
}

}  // namespace
}  // namespace zcrawl::frontier

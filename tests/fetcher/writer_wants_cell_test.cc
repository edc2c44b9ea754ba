// WriterWantsCell: a worker reads the writer's wishes as one value, never
// one field of a new Set beside another of the old. Meant to run under
// ThreadSanitizer too, where a data race is a failure.
#include "fetcher/writer_wants_cell.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace zcrawl::fetcher {
namespace {

TEST(WriterWantsCellTest, ReadsBackEachSetWholeAndStartsWithNothingWanted) {
  WriterWantsCell cell;
  EXPECT_EQ(cell.Load(), WriterWishes{});
  v1::WriterWants wants;
  wants.set_warc_block_level(6);
  wants.set_omit_body(true);
  wants.set_payload_digest(true);
  cell.Set(wants);
  EXPECT_EQ(cell.Load(), (WriterWishes{6, true, true}));
  wants.set_warc_block_level(0);
  wants.set_payload_digest(false);
  cell.Set(wants);
  EXPECT_EQ(cell.Load(), (WriterWishes{0, true, false}));
}

// The network thread flips between a WARC writer's wishes (blocks, no
// body, digest) and none at all, while workers read: every field differs,
// so any read mixing two Sets is neither. The flips go on until the
// readers have read a while, and each must have seen both wholes: the
// reads did overlap the writes.
TEST(WriterWantsCellTest, EveryReadIsOneOfThePublishedWholesWhileTheWishesFlip) {
  const WriterWishes warc{9, true, true};
  const WriterWishes none{0, false, false};
  WriterWantsCell cell;
  cell.Set(none);
  constexpr int kReaders = 2;
  constexpr uint64_t kReadsPerReader = 200000;
  std::atomic<int> readers_done{0};
  std::atomic<bool> stop{false};
  struct Seen {
    uint64_t warc = 0, none = 0, torn = 0;
  };
  std::vector<Seen> seen(kReaders);
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      Seen& mine = seen[r];
      uint64_t reads = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        const WriterWishes read = cell.Load();
        if (read == warc) {
          ++mine.warc;
        } else if (read == none) {
          ++mine.none;
        } else {
          ++mine.torn;
        }
        // Done once it has read enough and seen both (a reader that got
        // no CPU while the flips ran proves nothing).
        if (++reads >= kReadsPerReader && mine.warc > 0 && mine.none > 0) break;
      }
      readers_done.fetch_add(1);
    });
  }
  uint64_t flips = 0;
  while (readers_done.load() < kReaders && flips < 100'000'000) {
    cell.Set(flips % 2 == 0 ? warc : none);
    ++flips;
  }
  stop = true;
  for (auto& reader : readers) reader.join();
  for (int r = 0; r < kReaders; ++r) {
    EXPECT_EQ(seen[r].torn, 0u) << "reader " << r << " saw fields of two different Sets";
    EXPECT_GT(seen[r].warc, 0u) << "reader " << r;
    EXPECT_GT(seen[r].none, 0u) << "reader " << r;
  }
}

}  // namespace
}  // namespace zcrawl::fetcher

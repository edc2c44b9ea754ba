// QueueChangeIndex: each origin's queue changes in a batch, in staging
// order, as the batch grows.
#include "frontier/store/queue_change_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zcrawl::frontier {
namespace {

// A queue key as the store writes it: origin id, then seq, big-endian.
StagedChange QueueChange(uint32_t origin, uint64_t seq, bool remove = false) {
  std::string key;
  for (int i = 3; i >= 0; --i) key.push_back(static_cast<char>((origin >> (8 * i)) & 0xFF));
  for (int i = 7; i >= 0; --i) key.push_back(static_cast<char>((seq >> (8 * i)) & 0xFF));
  return StagedChange{/*family=*/2, remove, key, remove ? "" : "v"};
}

std::vector<size_t> PositionsOf(const QueueChangeIndex& index, uint32_t origin) {
  std::vector<size_t> out;
  index.ForEach(origin, [&](size_t at) { out.push_back(at); });
  return out;
}

TEST(QueueChangeIndexTest, FindsEachOriginsChangesInOrderAsTheBatchGrows) {
  std::vector<StagedChange> batch = {QueueChange(1, 1), QueueChange(2, 1), QueueChange(1, 2)};
  // Another family's 12-byte key whose first bytes read as origin 1.
  batch.push_back(StagedChange{/*family=*/1, false, QueueChange(1, 9).key, "s"});
  QueueChangeIndex index;
  index.CatchUp(batch);
  EXPECT_EQ(PositionsOf(index, 1), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(PositionsOf(index, 2), (std::vector<size_t>{1}));
  EXPECT_TRUE(PositionsOf(index, 3).empty());
  batch.push_back(QueueChange(1, 1, /*remove=*/true));
  batch.push_back(QueueChange(3, 1));
  index.CatchUp(batch);  // only the new positions are indexed
  EXPECT_EQ(PositionsOf(index, 1), (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(PositionsOf(index, 3), (std::vector<size_t>{5}));
  // A shorter batch is another batch: indexed afresh.
  batch = {QueueChange(3, 2), QueueChange(1, 3)};
  index.CatchUp(batch);
  EXPECT_EQ(PositionsOf(index, 1), (std::vector<size_t>{1}));
  EXPECT_EQ(PositionsOf(index, 3), (std::vector<size_t>{0}));
  index.Clear();
  EXPECT_TRUE(PositionsOf(index, 1).empty());
}

}  // namespace
}  // namespace zcrawl::frontier

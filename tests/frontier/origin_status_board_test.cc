// OriginStatusBoard: the status rows rank origins in RAM and parked ones
// together, and a parked row leaves when its origin comes back.
#include "frontier/scheduler/origin_status_board.h"

#include <gtest/gtest.h>

namespace zcrawl::frontier {
namespace {

void AddSlot(OriginSlots& slots, uint32_t id, const std::string& origin, uint64_t done, uint64_t failed) {
  HostSlot& slot = slots[id];
  slot.id = id;
  slot.origin = origin;
  slot.done = done;
  slot.failed = failed;
}

v1::HostQueue Row(const std::string& host, uint64_t done, uint64_t failed) {
  v1::HostQueue row;
  row.set_host(host);
  row.set_done(done);
  row.set_failed(failed);
  return row;
}

std::vector<std::string> Hosts(const std::vector<v1::HostQueue>& rows) {
  std::vector<std::string> hosts;
  for (const auto& row : rows) hosts.push_back(row.host());
  return hosts;
}

TEST(OriginStatusBoardTest, OriginsInRamAndParkedRankTogether) {
  OriginSlots slots;
  AddSlot(slots, 0, "http://busy", 50, 0);
  AddSlot(slots, 1, "http://quiet", 1, 0);
  OriginStatusBoard board;
  board.Parked(Row("http://parked", 20, 0));
  EXPECT_EQ(Hosts(board.Top(slots, 2, /*by_done=*/true)),
            (std::vector<std::string>{"http://busy", "http://parked"}));
  board.Loaded("http://parked");
  EXPECT_EQ(Hosts(board.Top(slots, 3, true)), (std::vector<std::string>{"http://busy", "http://quiet"}))
      << "a loaded origin's parked row leaves (its slot ranks now)";
}

TEST(OriginStatusBoardTest, FailingOriginsThatFetchedNothingComeFirst) {
  OriginSlots slots;
  AddSlot(slots, 0, "http://mostly-ok", 100, 9);
  AddSlot(slots, 1, "http://healthy", 100, 0);
  OriginStatusBoard board;
  board.Parked(Row("http://dead", 0, 3));
  board.Parked(Row("http://never-failed", 5, 0));
  EXPECT_EQ(Hosts(board.Failing(slots, 10)), (std::vector<std::string>{"http://dead", "http://mostly-ok"}));
}

TEST(OriginStatusBoardTest, ARowCarriesTheOriginsCountsAndLastFailure) {
  HostSlot slot;
  slot.origin = "http://a";
  slot.done = 2;
  slot.failed = 1;
  slot.in_flight = 3;
  slot.backlog = 7;
  slot.SetLastFailure("http_503");
  const v1::HostQueue row = OriginStatusBoard().RowOf(slot);
  EXPECT_EQ(row.host(), "http://a");
  EXPECT_EQ(row.waiting(), 7u);
  EXPECT_EQ(row.in_flight(), 3u);
  EXPECT_EQ(row.done(), 2u);
  EXPECT_EQ(row.failed(), 1u);
  EXPECT_EQ(row.last_failure(), "http_503");
}

}  // namespace
}  // namespace zcrawl::frontier

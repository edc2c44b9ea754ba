// PeerTable: the frontier's side of the heartbeat protocol, on timestamps
// given by the test: who is lost, who is owed a heartbeat, and what the
// frontier's own stall excuses.
#include "frontier/broker/peer_table.h"

#include <gtest/gtest.h>

namespace zcrawl::frontier {
namespace {

class PeerTableTest : public ::testing::Test {
 protected:
  PeerTableTest() {
    timing_.heartbeat_ms = 1000;
    timing_.liveness = 5;  // lost after 5,000 ms of silence
  }

  Peer& Join(const std::string& id, v1::PeerRole role, int64_t now) {
    bool is_new = false;
    Peer& peer = table_.Heard(id, "sender-" + id, now, &is_new);
    peer.role = role;
    return peer;
  }

  std::vector<std::string> Ids(const std::vector<Peer*>& peers) {
    std::vector<std::string> ids;
    for (const Peer* p : peers) ids.push_back(p->identity);
    return ids;
  }

  LivenessOptions timing_;
  PeerTable table_{timing_};
};

TEST_F(PeerTableTest, AMessageFromANewRoutingIdMakesItsRecordOnce) {
  bool is_new = false;
  Peer& first = table_.Heard("f1", "fetcher-1", 100, &is_new);
  EXPECT_TRUE(is_new);
  EXPECT_EQ(first.sender_id, "fetcher-1");
  EXPECT_EQ(first.role, v1::PEER_ROLE_UNSPECIFIED);
  Peer& again = table_.Heard("f1", "other", 200, &is_new);
  EXPECT_FALSE(is_new);
  EXPECT_EQ(&again, &first);
  EXPECT_EQ(again.sender_id, "fetcher-1") << "the record's sender id is the one it joined with";
  EXPECT_EQ(again.liveness.last_seen_ms, 200);
  table_.Remove("f1");
  EXPECT_EQ(table_.Find("f1"), nullptr);
}

TEST_F(PeerTableTest, APeerSilentPastLivenessTimesTheHeartbeatIsLostAndRemoved) {
  Join("quiet", v1::PEER_ROLE_FETCHER, 10'000);
  Join("talks", v1::PEER_ROLE_FETCHER, 10'000);
  for (int64_t now = 10'000; now <= 15'000; now += 500) {
    bool is_new = false;
    table_.Heard("talks", "", now, &is_new);
    EXPECT_TRUE(table_.CheckLiveness(now).lost.empty()) << "silent " << now - 10'000 << " ms: not yet";
  }
  const PeerTable::LivenessCheck check = table_.CheckLiveness(15'001);
  ASSERT_EQ(check.lost.size(), 1u);
  EXPECT_EQ(check.lost[0].identity, "quiet");
  EXPECT_EQ(check.lost[0].role, v1::PEER_ROLE_FETCHER) << "the record comes back whole";
  EXPECT_EQ(table_.Find("quiet"), nullptr);
  EXPECT_NE(table_.Find("talks"), nullptr);
}

TEST_F(PeerTableTest, APeerSentNothingForAHeartbeatIsOwedOne) {
  Peer& a = Join("a", v1::PEER_ROLE_FETCHER, 0);
  Join("b", v1::PEER_ROLE_WRITER, 0);
  a.liveness.Sent(500);
  table_.CheckLiveness(1);
  EXPECT_TRUE(table_.CheckLiveness(999).heartbeat_due.empty());
  EXPECT_EQ(Ids(table_.CheckLiveness(1000).heartbeat_due), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Ids(table_.CheckLiveness(1499).heartbeat_due), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Ids(table_.CheckLiveness(1500).heartbeat_due), (std::vector<std::string>{"a", "b"}));
}

TEST_F(PeerTableTest, TheFrontiersOwnStallIsNotHeldAgainstItsPeers) {
  Join("f", v1::PEER_ROLE_FETCHER, 0);
  EXPECT_EQ(table_.CheckLiveness(1000).stalled_ms, 0);
  EXPECT_EQ(table_.CheckLiveness(3000).stalled_ms, 0) << "two heartbeats between checks: no stall";
  // The frontier stood still for 10 s: the fetcher's silence meanwhile is excused.
  const PeerTable::LivenessCheck stalled = table_.CheckLiveness(13'000);
  EXPECT_EQ(stalled.stalled_ms, 10'000);
  EXPECT_TRUE(stalled.lost.empty());
  // Silent since (3 s before the stall, then 2 s after it) ...
  EXPECT_TRUE(table_.CheckLiveness(14'000).lost.empty());
  EXPECT_TRUE(table_.CheckLiveness(15'000).lost.empty());
  // ... past the window counted without the stall: lost.
  EXPECT_EQ(table_.CheckLiveness(15'001).lost.size(), 1u);
}

TEST_F(PeerTableTest, CountsTheWorkersThatTheCrawlsEndWaitsFor) {
  EXPECT_FALSE(table_.AnyWorker());
  Join("tool", v1::PEER_ROLE_CONTROL, 0);
  EXPECT_FALSE(table_.AnyWorker());
  Join("w", v1::PEER_ROLE_WRITER, 0);
  EXPECT_TRUE(table_.AnyWorker());
  EXPECT_EQ(table_.fetchers(), 0u);
  Join("f", v1::PEER_ROLE_FETCHER, 0);
  EXPECT_EQ(table_.fetchers(), 1u);
}

}  // namespace
}  // namespace zcrawl::frontier

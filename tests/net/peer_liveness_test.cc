// PeerLiveness: the one definition of "dead" and "owed a heartbeat" that
// PeerLink and the frontier's PeerTable share.
#include "net/peer_liveness.h"

#include <gtest/gtest.h>

namespace zcrawl {
namespace {

LivenessOptions Timing() {
  LivenessOptions timing;
  timing.heartbeat_ms = 100;
  timing.liveness = 3;
  return timing;
}

TEST(PeerLivenessTest, DeadAfterLivenessTimesTheHeartbeatOfSilenceNotBefore) {
  PeerLiveness peer;
  peer.Heard(1000);
  EXPECT_FALSE(peer.Dead(1300, Timing()));
  EXPECT_TRUE(peer.Dead(1301, Timing()));
  peer.Heard(1301);
  EXPECT_FALSE(peer.Dead(1301, Timing())) << "any message brings it back";
  EXPECT_EQ(peer.silent_ms(1351), 50);
}

TEST(PeerLivenessTest, OwedAHeartbeatAfterOneIntervalOfOurSilence) {
  PeerLiveness peer;
  peer.Sent(1000);
  EXPECT_FALSE(peer.HeartbeatDue(1099, Timing()));
  EXPECT_TRUE(peer.HeartbeatDue(1100, Timing()));
}

TEST(PeerLivenessTest, OurOwnStallIsExcusedButNeverPastNow) {
  PeerLiveness peer;
  peer.Heard(1000);
  peer.Excuse(500, 2000);
  EXPECT_EQ(peer.last_seen_ms, 1500);
  peer.Excuse(5000, 2000);
  EXPECT_EQ(peer.last_seen_ms, 2000);
}

}  // namespace
}  // namespace zcrawl

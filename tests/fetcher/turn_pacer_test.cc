// TurnPacer: a turn waits out its gap only while requests are queued in the
// fetch loop, and never longer than that queue lasts.
#include "fetcher/turn_pacer.h"

#include <gtest/gtest.h>

namespace zcrawl::fetcher {
namespace {

constexpr int64_t kGapUs = 10'000;

TEST(TurnPacerTest, NothingQueuedMeansNoWait) {
  TurnPacer pacer(kGapUs);
  pacer.TurnBegan(1'000'000);
  EXPECT_EQ(pacer.WaitUs(1'000'100, 0), 0) << "a slot is free or about to be: take the turn";
  EXPECT_EQ(pacer.WaitUs(1'000'100, 5), kGapUs - 100);
}

TEST(TurnPacerTest, ATurnAfterItsGapGoesAtOnce) {
  TurnPacer pacer(kGapUs);
  pacer.TurnBegan(1'000'000);
  EXPECT_EQ(pacer.WaitUs(1'000'000 + kGapUs, 20), 0);
  EXPECT_EQ(pacer.WaitUs(1'000'000 + 3 * kGapUs, 20), 0) << "a poll that waited long paces nothing";
}

TEST(TurnPacerTest, ZeroGapIsATurnPerEvent) {
  TurnPacer pacer(0);
  pacer.TurnBegan(1'000'000);
  EXPECT_EQ(pacer.WaitUs(1'000'001, 100), 0);
}

TEST(TurnPacerTest, TheWaitEndsBeforeTheQueueRunsOut) {
  TurnPacer pacer(kGapUs);
  // 1,000 transfers finishing a second: one a millisecond.
  int64_t now = 1'000'000;
  for (int i = 0; i < 200; ++i, now += 1'000) pacer.Finished(1, now);
  EXPECT_NEAR(pacer.finish_rate_per_s(), 1000.0, 20.0);
  pacer.TurnBegan(now);
  EXPECT_NEAR(static_cast<double>(pacer.WaitUs(now, 6)), 3'000.0, 100.0)
      << "6 queued last ~6 ms: wake at half, for the refill's round trip";
  EXPECT_EQ(pacer.WaitUs(now, 50), kGapUs) << "50 queued outlast the gap";
}

TEST(TurnPacerTest, AStalledLoopDoesNotOverflowTheWait) {
  TurnPacer pacer(kGapUs);
  int64_t now = 0;
  pacer.Finished(1, now);
  // Transfers stop finishing: the measured rate decays towards zero.
  for (int i = 0; i < 1'000; ++i) pacer.Finished(i == 0 ? 1 : 0, now += 200'000);
  EXPECT_GT(pacer.finish_rate_per_s(), 0.0);
  EXPECT_LT(pacer.finish_rate_per_s(), 1e-290) << "queued / rate is past any int64_t";
  pacer.TurnBegan(now);
  EXPECT_EQ(pacer.WaitUs(now, 1'000'000), kGapUs);
}

TEST(TurnPacerTest, TheRateFollowsAChange) {
  TurnPacer pacer(kGapUs);
  int64_t now = 0;
  for (int i = 0; i < 100; ++i, now += 10'000) pacer.Finished(1, now);  // 100/s
  EXPECT_NEAR(pacer.finish_rate_per_s(), 100.0, 5.0);
  for (int i = 0; i < 1'000; ++i, now += 1'000) pacer.Finished(1, now);  // then 1,000/s
  EXPECT_NEAR(pacer.finish_rate_per_s(), 1000.0, 50.0);
}

}  // namespace
}  // namespace zcrawl::fetcher

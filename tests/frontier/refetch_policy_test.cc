// RefetchPolicy: the adaptive interval (x1.4 unchanged, x0.8 changed,
// within [min, max], a first capture at min) and what counts as changed.
#include "frontier/scheduler/refetch_policy.h"

#include <gtest/gtest.h>

namespace zcrawl::frontier {
namespace {

constexpr int64_t kMin = 60'000;
constexpr int64_t kMax = 3'600'000;

v1::Validators WithInterval(int64_t interval_ms, uint64_t body_hash = 7) {
  v1::Validators v;
  v.set_refetch_interval_ms(interval_ms);
  v.set_body_hash(body_hash);
  return v;
}

v1::FetchReport Answer(uint32_t http_status, uint64_t body_hash) {
  v1::FetchReport report;
  report.set_status(v1::FETCH_STATUS_OK);
  report.set_http_status(http_status);
  if (body_hash != 0) report.mutable_captured()->set_body_hash(body_hash);
  return report;
}

TEST(RefetchPolicyTest, AFirstCaptureIsLookedAtAgainAfterTheShortestInterval) {
  const RefetchPolicy policy{kMin, kMax};
  EXPECT_EQ(policy.NextIntervalMs(nullptr, true), kMin);
  const v1::Validators recrawled;  // validators from an earlier crawl, no interval yet
  EXPECT_EQ(policy.NextIntervalMs(&recrawled, false), kMin);
}

TEST(RefetchPolicyTest, TheIntervalGrowsWhileUnchangedAndShrinksOnAChangeWithinItsBounds) {
  const RefetchPolicy policy{kMin, kMax};
  const v1::Validators at_100s = WithInterval(100'000);
  EXPECT_EQ(policy.NextIntervalMs(&at_100s, false), 140'000);
  EXPECT_EQ(policy.NextIntervalMs(&at_100s, true), 80'000);
  const v1::Validators near_max = WithInterval(3'000'000);
  EXPECT_EQ(policy.NextIntervalMs(&near_max, false), kMax);
  const v1::Validators near_min = WithInterval(70'000);
  EXPECT_EQ(policy.NextIntervalMs(&near_min, true), kMin);
  // Unchanged from the floor up: 1 h to 30 days in 20 fetches, as the
  // defaults' reason says (frontier_options.h).
  const RefetchPolicy defaults{3600'000, 30LL * 86400'000};
  v1::Validators state = WithInterval(defaults.min_ms);
  int fetches = 0;
  while (state.refetch_interval_ms() < defaults.max_ms) {
    state.set_refetch_interval_ms(defaults.NextIntervalMs(&state, false));
    ++fetches;
  }
  EXPECT_EQ(fetches, 20);
}

TEST(RefetchPolicyTest, ANotModifiedOrTheSameBodyIsUnchangedAndAnotherBodyIsChanged) {
  const v1::Validators previous = WithInterval(100'000, 42);
  EXPECT_FALSE(RefetchPolicy::Changed(&previous, Answer(304, 0)));
  EXPECT_FALSE(RefetchPolicy::Changed(&previous, Answer(200, 42)));  // a server without validators
  EXPECT_TRUE(RefetchPolicy::Changed(&previous, Answer(200, 43)));
  EXPECT_TRUE(RefetchPolicy::Changed(nullptr, Answer(200, 42)));    // first capture
  EXPECT_TRUE(RefetchPolicy::Changed(&previous, Answer(200, 0)));    // nothing to compare
}

}  // namespace
}  // namespace zcrawl::frontier

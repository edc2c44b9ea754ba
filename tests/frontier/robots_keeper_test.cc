// RobotsKeeper: what a robots.txt answer makes of an origin's rules, their
// time to live, and their trip to the store and back.
#include "frontier/scheduler/robots_keeper.h"

#include <gtest/gtest.h>

#include "tests/frontier/scheduler_test_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

v1::FetchReport RobotsReport(uint32_t http, const std::string& body = "",
                             v1::FetchStatus status = v1::FETCH_STATUS_OK) {
  v1::FetchReport report;
  report.set_status(status);
  report.set_http_status(http);
  report.set_robots_txt(body);
  return report;
}

HostSlot Origin(uint32_t id) {
  HostSlot slot;
  slot.id = id;
  slot.origin = "http://a.test";
  slot.robots_state = RobotsState::kFetching;
  return slot;
}

TEST(RobotsKeeperTest, AnAnswerDecidesTheRules) {
  FakeClock clock;
  OriginMemory memory;
  RobotsKeeper keeper({"zcrawl"}, nullptr, clock, memory, 1);
  HostSlot parsed = Origin(0);
  std::vector<std::string> sitemaps;
  EXPECT_EQ(keeper.Learn(parsed, RobotsReport(200, "User-agent: *\nDisallow: /private\nCrawl-delay: 3\n"
                                                   "Sitemap: http://a.test/s.xml\n"),
                         &sitemaps),
            RobotsKeeper::Answer::kLearned);
  EXPECT_EQ(parsed.robots_state, RobotsState::kKnown);
  EXPECT_FALSE(keeper.Allows(parsed, "http://a.test/private/x"));
  EXPECT_TRUE(keeper.Allows(parsed, "http://a.test/public"));
  EXPECT_EQ(parsed.delay_ms, 3000) << "Crawl-delay raises the politeness delay";
  EXPECT_EQ(sitemaps, std::vector<std::string>{"http://a.test/s.xml"});

  HostSlot missing = Origin(1);
  EXPECT_EQ(keeper.Learn(missing, RobotsReport(404), nullptr), RobotsKeeper::Answer::kLearned);
  EXPECT_TRUE(keeper.Allows(missing, "http://a.test/private/x")) << "RFC 9309: a 4xx allows all";

  for (const auto& report : {RobotsReport(503), RobotsReport(429),
                             RobotsReport(0, "", v1::FETCH_STATUS_NETWORK_ERROR)}) {
    HostSlot struggling = Origin(2);
    EXPECT_EQ(keeper.Learn(struggling, report, nullptr), RobotsKeeper::Answer::kUnanswered);
    EXPECT_EQ(struggling.robots_state, RobotsState::kFetching) << "the scheduler decides what comes next";
    EXPECT_FALSE(struggling.robots);
  }
  HostSlot refused = Origin(3);
  EXPECT_EQ(keeper.Learn(refused, RobotsReport(0, "", v1::FETCH_STATUS_PRIVATE_ADDRESS), nullptr),
            RobotsKeeper::Answer::kPrivateAddress);

  HostSlot gave_up = Origin(4);
  keeper.GiveUp(gave_up);
  EXPECT_FALSE(keeper.Allows(gave_up, "http://a.test/")) << "no answer within the retries: disallow all";
  EXPECT_GT(memory.heap_bytes(), 0u) << "the rules' RAM is counted";
}

TEST(RobotsKeeperTest, RulesAreAskedAgainAfterTheirTimeToLive) {
  FakeClock clock;
  OriginMemory memory;
  RobotsKeeper keeper({"zcrawl", /*ttl_ms=*/1000}, nullptr, clock, memory, 1);
  HostSlot slot = Origin(0);
  keeper.Learn(slot, RobotsReport(200, "User-agent: *\nDisallow:\n"), nullptr);
  clock.Advance(1000);
  keeper.PrepareForLease(slot);
  EXPECT_EQ(slot.robots_state, RobotsState::kKnown);
  clock.Advance(1);
  keeper.PrepareForLease(slot);
  EXPECT_EQ(slot.robots_state, RobotsState::kNeeded);
}

TEST(RobotsKeeperTest, AnIdleOriginsRulesLeaveRamOnceWrittenAndComeBackBeforeALease) {
  FakeClock clock;
  OriginMemory memory;
  auto store = OpenStore(zcrawl::testing::MakeTempDir("robots_keeper_spill"));
  ASSERT_TRUE(store);
  RobotsKeeper keeper({"zcrawl"}, store.get(), clock, memory, 7);
  HostSlot slot = Origin(0);
  keeper.Learn(slot, RobotsReport(200, "User-agent: *\nDisallow: /private\n"), nullptr);
  const uint64_t with_rules = memory.heap_bytes();
  keeper.MaybeSpill(slot);
  EXPECT_TRUE(slot.robots) << "not before the store holds them";
  EXPECT_EQ(keeper.TakeSpillCandidates(), std::vector<uint32_t>{0});
  ASSERT_TRUE(store->Flush().ok());
  keeper.MaybeSpill(slot);
  EXPECT_FALSE(slot.robots);
  EXPECT_LT(memory.heap_bytes(), with_rules);
  EXPECT_EQ(keeper.spilled(), 1u);
  keeper.PrepareForLease(slot);
  ASSERT_TRUE(slot.robots);
  EXPECT_FALSE(keeper.Allows(slot, "http://a.test/private"));
  EXPECT_EQ(keeper.reloaded(), 1u);

  // Another run's keeper (another token) does not take them: asked again.
  RobotsKeeper next_run({"zcrawl"}, store.get(), clock, memory, 8);
  slot.robots.reset();
  next_run.PrepareForLease(slot);
  EXPECT_EQ(slot.robots_state, RobotsState::kNeeded);
  EXPECT_EQ(next_run.reload_misses(), 1u);
}

}  // namespace
}  // namespace zcrawl::frontier

// CrawlBeacon: written and read back whole, refused when damaged, and never
// taken for a running crawl when it is stale, stopped, or its process is
// gone.
#include "common/crawl_beacon.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/test_process.h"

namespace zcrawl {
namespace {

TEST(CrawlBeaconTest, RoundTripAndTheEndpointsAToolCanReach) {
  const std::string dir = testing::MakeTempDir("beacon");
  CrawlBeacon beacon;
  beacon.endpoints = ReachableEndpoints("inproc://x,ipc://@y,tcp://*:5570,tcp://0.0.0.0:6000,tcp://10.0.0.5:7000");
  EXPECT_EQ(beacon.endpoints,
            (std::vector<std::string>{"tcp://127.0.0.1:5570", "tcp://127.0.0.1:6000", "tcp://10.0.0.5:7000"}));
  beacon.metrics = "http://127.0.0.1:9100/metrics";
  beacon.pid = getpid();
  beacon.started_ms = 1'000;
  beacon.alive_ms = 2'000;
  ASSERT_TRUE(WriteCrawlBeacon(dir, beacon).ok());
  auto back = ReadCrawlBeacon(dir);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->endpoints, beacon.endpoints);
  EXPECT_EQ(back->metrics, beacon.metrics);
  EXPECT_EQ(back->pid, beacon.pid);
  EXPECT_EQ(back->started_ms, 1'000);
  EXPECT_EQ(back->alive_ms, 2'000);
  EXPECT_EQ(back->stopped_ms, 0);
  EXPECT_FALSE(back->host.empty()) << "this machine's name";
}

TEST(CrawlBeaconTest, ADamagedOrMissingBeaconIsAnErrorNotACrawl) {
  const std::string dir = testing::MakeTempDir("beacon_bad");
  EXPECT_EQ(ReadCrawlBeacon(dir).status().code(), StatusCode::kNotFound);
  std::ofstream(BeaconPath(dir)) << "endpoint tcp://127.0.0.1:1\npid 12x\n";
  auto bad = ReadCrawlBeacon(dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(":2:"), std::string::npos) << bad.status().message();
  std::ofstream(BeaconPath(dir), std::ios::trunc) << "pid 12\n";
  EXPECT_FALSE(ReadCrawlBeacon(dir).ok()) << "no endpoint";
}

TEST(CrawlBeaconTest, OnlyAFreshBeaconOfALiveProcessIsARunningCrawl) {
  const std::string dir = testing::MakeTempDir("beacon_state");
  CrawlBeacon beacon;
  beacon.endpoints = {"tcp://127.0.0.1:1"};
  beacon.pid = getpid();
  beacon.alive_ms = 100'000;
  ASSERT_TRUE(WriteCrawlBeacon(dir, beacon).ok());
  CrawlBeacon mine = *ReadCrawlBeacon(dir);
  EXPECT_EQ(CrawlBeaconState(mine, 100'000 + kBeaconStaleMs), BeaconState::kRunning);
  EXPECT_EQ(CrawlBeaconState(mine, 100'001 + kBeaconStaleMs), BeaconState::kSilent) << "not refreshed";
  mine.stopped_ms = 100'000;
  EXPECT_EQ(CrawlBeaconState(mine, 100'000), BeaconState::kStopped);

  // A process that is gone, on this machine: silent though fresh.
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  waitpid(child, &status, 0);
  CrawlBeacon gone = *ReadCrawlBeacon(dir);
  gone.pid = child;
  EXPECT_EQ(CrawlBeaconState(gone, 100'000), BeaconState::kSilent);
  EXPECT_EQ(FormatUtc(1'796'650'504'504), "2026-12-07 13:35:04 UTC");
}

}  // namespace
}  // namespace zcrawl

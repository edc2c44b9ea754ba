// ProcessSupervisor with fake children on a fake clock: a crash is
// restarted after a backoff that doubles, a child that keeps crashing is
// given up on (exit code 1), a configuration exit stops the crawl (2), the
// frontier's clean exit ends supervision (0), a stop request gives 130, a
// child that ignores it is killed after the grace period, and start-up
// tells "already finished" from "failed" from "cannot start".
#include "launcher/process_supervisor.h"

#include <signal.h>

#include <cstdio>
#include <map>
#include <stdexcept>

#include <gtest/gtest.h>

#include "tests/launcher/fake_child.h"

namespace zcrawl::launcher {
namespace {

using testing::FakeChild;


constexpr FakeChild::Run kUntilSignalled{-1, 0};
constexpr uint16_t kFrontierPort = 7001;
constexpr uint16_t kWriterPort = 7002;
// The supervisor's round (SupervisorOptions::poll_ms): when it notices.
constexpr int64_t kPollMs = 20;

// A frontier, a writer and fetchers, each a FakeChild the test scripts;
// a port accepts while the child that opens it runs.
class SupervisorTest : public ::testing::Test {
 protected:
  FakeChild* Add(const std::string& name, std::vector<FakeChild::Run> script, std::vector<uint16_t> ports = {}) {
    auto child = std::make_unique<FakeChild>(name, clock_, std::move(script));
    FakeChild* raw = child.get();
    for (uint16_t port : ports) listeners_[port] = raw;
    children_.push_back(SupervisedChild{std::move(child), std::move(ports)});
    return raw;
  }

  ProcessSupervisor& Make() {
    SupervisorEnv env;
    env.clock = &clock_;
    env.wait = [this](int64_t ms) {
      clock_.Advance(ms);
      if (stop_at_ms_ && clock_.NowMs() >= stop_at_ms_) stop_ = true;
      // A supervisor that never ends fails the test instead of hanging it.
      if (clock_.NowMs() - kStartMs > 3'600'000) throw std::runtime_error("still supervising after an hour");
    };
    env.stop_requested = [this] { return stop_; };
    env.port_accepts = [this](uint16_t port) {
      auto it = listeners_.find(port);
      return it != listeners_.end() && it->second->running() && !it->second->deaf;
    };
    supervisor_ = std::make_unique<ProcessSupervisor>(std::move(children_), options_, env, console_);
    return *supervisor_;
  }

  // Starts everything and supervises to the end; the crawl's result.
  int StartAndSupervise() {
    ProcessSupervisor& supervisor = Make();
    EXPECT_EQ(supervisor.StartAll(), ProcessSupervisor::StartResult::kStarted);
    return supervisor.Supervise();
  }

  int64_t Elapsed() const { return clock_.NowMs() - kStartMs; }

  static constexpr int64_t kStartMs = 1'000'000;
  FakeClock clock_{kStartMs};
  FILE* devnull_ = fopen("/dev/null", "w");
  Console console_{devnull_};
  SupervisorOptions options_;
  std::vector<SupervisedChild> children_;
  std::map<uint16_t, FakeChild*> listeners_;
  std::unique_ptr<ProcessSupervisor> supervisor_;
  bool stop_ = false;
  int64_t stop_at_ms_ = 0;

  ~SupervisorTest() override {
    supervisor_.reset();
    fclose(devnull_);
  }
};

TEST(RestartBackoffTest, DoublesFrom250MsAndStaysAt10Seconds) {
  EXPECT_EQ(RestartBackoffMs(0), 250);
  EXPECT_EQ(RestartBackoffMs(1), 500);
  EXPECT_EQ(RestartBackoffMs(2), 1000);
  EXPECT_EQ(RestartBackoffMs(5), 8000);
  EXPECT_EQ(RestartBackoffMs(6), 10000);
  EXPECT_EQ(RestartBackoffMs(40), 10000);
}

TEST(RestartBackoffTest, ConfigurationExitsAre2And100To127) {
  for (int code : {2, 100, 126, 127}) EXPECT_TRUE(IsConfigurationExit(code)) << code;
  for (int code : {0, 1, 3, 99, 128, 130, 137, 139}) EXPECT_FALSE(IsConfigurationExit(code)) << code;
}

TEST_F(SupervisorTest, ACrashedFetcherIsRestartedAfterABackoffThatDoubles) {
  FakeChild* frontier = Add("frontier", {{30'000, 0}}, {kFrontierPort});
  Add("writer", {kUntilSignalled}, {kWriterPort});
  // Crashes 100 ms into each of its first four runs (SIGSEGV), then runs.
  FakeChild* fetcher = Add("fetcher-1", {{100, 139}, {100, 139}, {100, 139}, {100, 139}, kUntilSignalled});

  EXPECT_EQ(StartAndSupervise(), 0);

  ASSERT_EQ(fetcher->starts(), 5);
  EXPECT_EQ(supervisor_->state(2).restarts, 4u);
  // Each restart waits the backoff after the crash was seen (within a
  // round of it): 250, 500, 1000, 2000 ms.
  const int64_t expected[] = {250, 500, 1000, 2000};
  for (size_t k = 0; k < 4; ++k) {
    const int64_t waited = fetcher->start_times_ms[k + 1] - fetcher->exit_times_ms[k];
    EXPECT_GE(waited, expected[k]) << "restart " << k + 1;
    EXPECT_LE(waited, expected[k] + kPollMs) << "restart " << k + 1;
  }
  EXPECT_EQ(frontier->starts(), 1);
  EXPECT_TRUE(supervisor_->frontier_done());
}

TEST_F(SupervisorTest, AChildThatKeepsCrashingIsGivenUpOnAfterMaxRestartsAndTheCrawlExits1) {
  options_.max_restarts = 3;
  Add("frontier", {{60'000, 0}}, {kFrontierPort});
  FakeChild* writer = Add("writer", {kUntilSignalled}, {kWriterPort});
  FakeChild* fetcher = Add("fetcher-1", {{50, 134}});  // crashes every time

  EXPECT_EQ(StartAndSupervise(), 1);

  EXPECT_EQ(fetcher->starts(), 4) << "the first run and max_restarts restarts";
  EXPECT_EQ(supervisor_->state(2).restarts, 3u);
  EXPECT_EQ(supervisor_->state(2).restart_at_ms, 0) << "no restart pending after giving up";
  EXPECT_EQ(writer->starts(), 1);
  EXPECT_FALSE(supervisor_->stopping()) << "a fetcher given up on does not stop the crawl";
}

TEST_F(SupervisorTest, AFrontierThatKeepsCrashingStopsTheCrawlWithExitCode1) {
  options_.max_restarts = 2;
  FakeChild* frontier = Add("frontier", {{1000, 139}}, {kFrontierPort});
  FakeChild* writer = Add("writer", {kUntilSignalled}, {kWriterPort});
  FakeChild* fetcher = Add("fetcher-1", {kUntilSignalled});

  EXPECT_EQ(StartAndSupervise(), 1);

  EXPECT_EQ(frontier->starts(), 3);
  EXPECT_TRUE(supervisor_->stopping());
  EXPECT_EQ(writer->signals.front(), SIGTERM);
  EXPECT_EQ(fetcher->signals.front(), SIGTERM);
  EXPECT_EQ(writer->starts(), 1);
}

TEST_F(SupervisorTest, AConfigurationExitStopsTheCrawlWithExitCode2AndIsNotRestarted) {
  Add("frontier", {kUntilSignalled}, {kFrontierPort});
  FakeChild* writer = Add("writer", {{500, 2}}, {kWriterPort});
  FakeChild* fetcher = Add("fetcher-1", {kUntilSignalled});

  EXPECT_EQ(StartAndSupervise(), 2);

  EXPECT_EQ(writer->starts(), 1);
  EXPECT_EQ(supervisor_->state(1).restarts, 0u);
  EXPECT_EQ(fetcher->signals, std::vector<int>{SIGTERM});
  EXPECT_LT(Elapsed(), 1000) << "stopped at once, not after a grace period";
}

TEST_F(SupervisorTest, TheFrontiersCleanExitEndsSupervisionAndLatePeersAreAskedToExit) {
  options_.peer_exit_wait_ms = 2000;
  FakeChild* frontier = Add("frontier", {{1000, 0}}, {kFrontierPort});
  FakeChild* writer = Add("writer", {kUntilSignalled}, {kWriterPort});
  FakeChild* fetcher = Add("fetcher-1", {{1500, 0}});  // follows on its own

  EXPECT_EQ(StartAndSupervise(), 0);

  EXPECT_TRUE(supervisor_->frontier_done());
  EXPECT_TRUE(frontier->signals.empty());
  EXPECT_EQ(fetcher->starts(), 1) << "a clean exit is not restarted";
  EXPECT_TRUE(fetcher->signals.empty());
  // The writer did not follow: SIGTERM once the peers' wait was over.
  EXPECT_EQ(writer->signals, std::vector<int>{SIGTERM});
  ASSERT_EQ(writer->exit_times_ms.size(), 1u);
  const int64_t after_frontier = writer->exit_times_ms[0] - frontier->exit_times_ms[0];
  EXPECT_GT(after_frontier, 2000);
  EXPECT_LE(after_frontier, 2000 + 2 * kPollMs);
}

TEST_F(SupervisorTest, AnOnlyChildExitingZeroEndsSupervisionWithZero) {
  FakeChild* local = Add("local", {{700, 0}}, {kFrontierPort, kWriterPort});

  EXPECT_EQ(StartAndSupervise(), 0);

  EXPECT_EQ(local->starts(), 1);
  EXPECT_LE(Elapsed(), 700 + kPollMs);
}

TEST_F(SupervisorTest, AStopRequestSendsSigintToAllAndGives130WithoutRestarts) {
  stop_at_ms_ = kStartMs + 500;
  FakeChild* frontier = Add("frontier", {kUntilSignalled}, {kFrontierPort});
  FakeChild* writer = Add("writer", {kUntilSignalled}, {kWriterPort});
  // Exits non-zero on its own right after the stop: not restarted.
  FakeChild* fetcher = Add("fetcher-1", {{520, 139}});
  fetcher->ignored_signals = {SIGINT};

  EXPECT_EQ(StartAndSupervise(), 130);

  EXPECT_EQ(frontier->signals.front(), SIGINT);
  EXPECT_EQ(writer->signals.front(), SIGINT);
  EXPECT_EQ(fetcher->signals.front(), SIGINT);
  EXPECT_EQ(fetcher->starts(), 1);
  EXPECT_EQ(supervisor_->state(2).restarts, 0u);
  EXPECT_LT(Elapsed(), 1000);
}

TEST_F(SupervisorTest, AChildIgnoringTheStopIsKilledOnceTheGracePeriodIsOver) {
  options_.exit_grace_ms = 5000;
  stop_at_ms_ = kStartMs + 500;
  Add("frontier", {kUntilSignalled}, {kFrontierPort});
  Add("writer", {kUntilSignalled}, {kWriterPort});
  FakeChild* stubborn = Add("fetcher-1", {kUntilSignalled});
  stubborn->ignored_signals = {SIGINT, SIGTERM};

  EXPECT_EQ(StartAndSupervise(), 130);

  ASSERT_FALSE(stubborn->signals.empty());
  EXPECT_EQ(stubborn->signals.back(), SIGKILL);
  ASSERT_EQ(stubborn->exit_times_ms.size(), 1u);
  const int64_t killed_after_stop = stubborn->exit_times_ms[0] - (kStartMs + 500);
  EXPECT_GT(killed_after_stop, 5000);
  EXPECT_LE(killed_after_stop, 5000 + 3 * kPollMs);
}

TEST_F(SupervisorTest, AFinishedCrawlThatWillNotExitIsKilledAndFails) {
  options_.exit_grace_ms = 5000;
  Add("frontier", {{1000, 0}}, {kFrontierPort});
  FakeChild* writer = Add("writer", {kUntilSignalled}, {kWriterPort});
  writer->ignored_signals = {SIGTERM};

  EXPECT_EQ(StartAndSupervise(), 1);
  EXPECT_EQ(writer->signals, (std::vector<int>{SIGTERM, SIGKILL}));
}

TEST_F(SupervisorTest, AFrontierExitingZeroAtStartHadFinishedAndNothingElseStarts) {
  FakeChild* frontier = Add("frontier", {{0, 0}}, {kFrontierPort});
  frontier->deaf = true;
  FakeChild* writer = Add("writer", {kUntilSignalled}, {kWriterPort});
  ProcessSupervisor& supervisor = Make();

  EXPECT_EQ(supervisor.StartAll(), ProcessSupervisor::StartResult::kFinishedAtOnce);
  EXPECT_EQ(supervisor.Supervise(), 0);
  EXPECT_EQ(frontier->starts(), 1);
  EXPECT_EQ(writer->starts(), 0);
}

TEST_F(SupervisorTest, AChildExitingDuringStartUpFailsTheStartAndStopsTheOthers) {
  FakeChild* frontier = Add("frontier", {kUntilSignalled}, {kFrontierPort});
  FakeChild* writer = Add("writer", {{10, 2}}, {kWriterPort});
  writer->deaf = true;
  FakeChild* fetcher = Add("fetcher-1", {kUntilSignalled});
  ProcessSupervisor& supervisor = Make();

  EXPECT_EQ(supervisor.StartAll(), ProcessSupervisor::StartResult::kFailed);
  EXPECT_EQ(frontier->signals, std::vector<int>{SIGTERM});
  EXPECT_EQ(fetcher->starts(), 0);
  EXPECT_EQ(writer->starts(), 1);
  supervisor.Supervise();
  EXPECT_FALSE(frontier->running());
}

TEST_F(SupervisorTest, AFrontierThatNeverListensFailsTheStartAfterTheTimeout) {
  FakeChild* frontier = Add("frontier", {kUntilSignalled}, {kFrontierPort});
  frontier->deaf = true;
  FakeChild* writer = Add("writer", {kUntilSignalled}, {kWriterPort});
  ProcessSupervisor& supervisor = Make();

  EXPECT_EQ(supervisor.StartAll(), ProcessSupervisor::StartResult::kFailed) << "running but deaf is no finish";
  EXPECT_GE(Elapsed(), options_.listen_timeout_ms);
  EXPECT_EQ(frontier->signals, std::vector<int>{SIGTERM});
  EXPECT_EQ(writer->starts(), 0);
}

TEST_F(SupervisorTest, AChildThatCannotBeStartedEndsTheLaunchAndStopsTheOthers) {
  FakeChild* frontier = Add("frontier", {kUntilSignalled}, {kFrontierPort});
  FakeChild* writer = Add("writer", {kUntilSignalled}, {kWriterPort});
  writer->fail_start = true;
  ProcessSupervisor& supervisor = Make();

  EXPECT_EQ(supervisor.StartAll(), ProcessSupervisor::StartResult::kCannotStart);
  EXPECT_EQ(frontier->signals, std::vector<int>{SIGTERM});
}

}  // namespace
}  // namespace zcrawl::launcher

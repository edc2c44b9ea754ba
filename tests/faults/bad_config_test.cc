// Fault injection, configuration: each binary and `./run crawl` given an
// unknown flag, bad seed URLs, an unwritable output folder, a port already
// in use, a bad endpoint or a bad config file must refuse to start with a
// non-zero exit and one line naming the problem: no stack trace, no
// "terminate called", no half-started crawl, no process left behind.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/faults/fault_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

// A refusal must come quickly; a run still going after this was not refused.
constexpr int kRefusalMs = 20000;

struct Refusal {
  std::optional<int> exit_code;
  std::string output;  // stdout and stderr
  std::vector<std::string> lines;
  std::vector<pid_t> leftovers;  // processes still running with the marker
};

// A TCP listener on 127.0.0.1 that keeps its port busy while it lives.
class BusyPort {
 public:
  BusyPort() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && listen(fd_, 4) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port_ = ntohs(addr.sin_port);
    }
  }
  ~BusyPort() { close(fd_); }
  BusyPort(const BusyPort&) = delete;
  BusyPort& operator=(const BusyPort&) = delete;

  int port() const { return port_; }
  std::string endpoint() const { return "tcp://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

class BadConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("bad-config");
    // A regular file: nothing can be created "inside" it, not even by root.
    not_a_folder_ = dir_ + "/plain-file";
    std::ofstream(not_a_folder_) << "not a folder\n";
  }

  std::string Bin(const std::string& name) const { return BinDir() + "/zcrawl-" + name; }
  // `./run crawl ARGS` on ports of our choosing (unless ARGS sets them), so
  // that its children can be found by port if they outlive it.
  std::vector<std::string> Crawl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {SourceDir() + "/run", "crawl"};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* flag : {"--frontier-port", "--writer-port"}) {
      if (std::find(args.begin(), args.end(), flag) != args.end()) continue;
      argv.push_back(flag);
      argv.push_back(std::to_string(FreeLoopbackPort()));
    }
    return argv;
  }
  // A seed nobody serves; never fetched because start-up must fail first.
  std::string Seed() const { return "http://127.0.0.1:9/"; }

  // Runs argv and collects what a user would see. Every process this run
  // starts has the test's folder, or one of the ports on the command line
  // (`./run crawl` children), in its own command line: that finds leftovers.
  Refusal Run(const std::vector<std::string>& argv) {
    std::vector<std::string> markers = {dir_};
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == "--frontier-port" || argv[i] == "--writer-port") {
        markers.push_back("127.0.0.1:" + argv[i + 1]);
      }
    }
    const std::string log = dir_ + "/run-" + std::to_string(++runs_) + ".log";
    TestProcess process;
    process.Start(argv, log, {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
    Refusal result;
    result.exit_code = process.Wait(kRefusalMs);
    if (!result.exit_code) {  // not refused: stop it, politely first
      process.Signal(SIGTERM);
      if (!process.Wait(5000)) process.Signal(SIGKILL);
      process.Wait(5000);
    }
    result.output = ReadFile(log);
    result.lines = NonEmptyLines(result.output);
    // A child that outlives the refusal is a half-started crawl; give a
    // dying one a moment, then clean up whatever is left.
    const int64_t deadline = SteadyNowMs() + 2000;
    do {
      result.leftovers.clear();
      for (const auto& marker : markers) {
        for (pid_t pid : PidsWithArgument(marker)) result.leftovers.push_back(pid);
      }
      if (result.leftovers.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (SteadyNowMs() < deadline);
    for (pid_t pid : result.leftovers) kill(pid, SIGKILL);
    return result;
  }

  // Non-zero exit (not a signal), exactly one line, and that line names
  // every one of `mentions`; nothing that looks like a crash.
  static void ExpectCleanRefusal(const Refusal& r, const std::vector<std::string>& mentions) {
    ASSERT_TRUE(r.exit_code.has_value()) << "still running after " << kRefusalMs << " ms:\n" << r.output;
    EXPECT_NE(*r.exit_code, 0) << r.output;
    EXPECT_LT(*r.exit_code, 128) << "killed by a signal:\n" << r.output;
    EXPECT_EQ(r.lines.size(), 1u) << "want one line, got:\n" << r.output;
    const std::string first = r.lines.empty() ? "" : r.lines.front();
    for (const auto& mention : mentions) {
      EXPECT_NE(first.find(mention), std::string::npos)
          << "the error line does not name '" << mention << "':\n" << r.output;
    }
    for (const char* crash : {"terminate called", "what():", "Aborted", "core dumped",
                              "Segmentation fault", "stack trace", "Backtrace"}) {
      EXPECT_EQ(r.output.find(crash), std::string::npos) << "looks like a crash:\n" << r.output;
    }
    EXPECT_TRUE(r.leftovers.empty()) << r.leftovers.size() << " processes left running:\n" << r.output;
  }

  // `./run crawl --out DIR/out` refused before starting a process: it
  // prepares the output folder (the frontier's state in OUT/.zcrawl) before
  // starting the frontier, the writer and then the fetchers.
  void ExpectNothingStarted(const Refusal& r) const {
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/out")) << "the crawl was started:\n" << r.output;
  }

  std::string dir_;
  std::string not_a_folder_;
  int runs_ = 0;
};

// --- unknown flags -------------------------------------------------------

TEST_F(BadConfigTest, UnknownFlagIsNamedByEveryBinary) {
  ExpectCleanRefusal(Run({Bin("frontier"), "--summary-file", dir_ + "/s.json", "--no-such-flag", Seed()}),
                     {"--no-such-flag"});
  ExpectCleanRefusal(Run({Bin("writer"), "--out", dir_ + "/out", "--no-such-flag"}),
                     {"--no-such-flag"});
  ExpectCleanRefusal(Run({Bin("fetcher"), "--user-agent", dir_, "--no-such-flag"}),
                     {"--no-such-flag"});
  const auto crawl = Crawl({Seed(), "--out", dir_ + "/out", "--no-such-flag"});
  ExpectCleanRefusal(Run(crawl), {"--no-such-flag"});
}

TEST_F(BadConfigTest, OutOfRangeValueIsNamed) {
  ExpectCleanRefusal(Run({Bin("fetcher"), "--threads", "0", "--user-agent", dir_}),
                     {"--threads"});
  const auto crawl = Crawl({Seed(), "--out", dir_ + "/out", "--delay-ms", "-5"});
  ExpectCleanRefusal(Run(crawl), {"--delay-ms"});
}

// --- bad seeds -------------------------------------------------------------

TEST_F(BadConfigTest, FrontierRefusesBadSeedUrlsBeforeBinding) {
  for (const std::string seed : {"not a url", "ftp://127.0.0.1/x", "http://", "http://exa mple.com/"}) {
    SCOPED_TRACE(seed);
    const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
    ExpectCleanRefusal(Run({Bin("frontier"), "--bind", endpoint, "--state", dir_ + "/state", seed}),
                       {seed});
  }
}

TEST_F(BadConfigTest, RunCrawlRefusesABadSeedWithoutStartingAnything) {
  const auto crawl = Crawl({"not a url", "--out", dir_ + "/out"});
  const Refusal r = Run(crawl);
  ExpectCleanRefusal(r, {"not a url"});
  ExpectNothingStarted(r);
}

TEST_F(BadConfigTest, RunCrawlWithoutSeedsSaysSo) {
  const auto crawl = Crawl({"--out", dir_ + "/out"});
  ExpectCleanRefusal(Run(crawl), {"seed"});
}

// --- unwritable output -------------------------------------------------------

TEST_F(BadConfigTest, WriterRefusesAnUnwritableOutputFolder) {
  const std::string out = not_a_folder_ + "/out";
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  ExpectCleanRefusal(Run({Bin("writer"), "--bind", endpoint, "--out", out}), {out});
}

TEST_F(BadConfigTest, FrontierRefusesAnUnwritableStateFolder) {
  const std::string state = not_a_folder_ + "/state";
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  ExpectCleanRefusal(Run({Bin("frontier"), "--bind", endpoint, "--state", state, Seed()}),
                     {state});
}

TEST_F(BadConfigTest, RunCrawlRefusesAnUnwritableOutputFolder) {
  const std::string out = not_a_folder_ + "/out";
  const auto crawl = Crawl({Seed(), "--out", out});
  ExpectCleanRefusal(Run(crawl), {out});
}

// --- ports in use and bad endpoints -----------------------------------------

TEST_F(BadConfigTest, FrontierAndWriterNameTheBusyPort) {
  BusyPort busy;
  ASSERT_GT(busy.port(), 0);
  const std::string port = std::to_string(busy.port());
  ExpectCleanRefusal(Run({Bin("frontier"), "--bind", busy.endpoint(), "--state", dir_ + "/state", Seed()}),
                     {port, "in use"});
  ExpectCleanRefusal(Run({Bin("writer"), "--bind", busy.endpoint(), "--out", dir_ + "/out"}),
                     {port, "in use"});
}

TEST_F(BadConfigTest, RunCrawlNamesTheBusyPort) {
  for (const std::string flag : {"--frontier-port", "--writer-port"}) {
    SCOPED_TRACE(flag);
    BusyPort busy;
    ASSERT_GT(busy.port(), 0);
    const std::string port = std::to_string(busy.port());
    const auto crawl = Crawl({Seed(), "--out", dir_ + "/out", flag, port});
    const Refusal r = Run(crawl);
    ExpectCleanRefusal(r, {port, "in use"});
    ExpectNothingStarted(r);
  }
}

TEST_F(BadConfigTest, BadEndpointsAreNamed) {
  ExpectCleanRefusal(Run({Bin("frontier"), "--bind", "not-an-endpoint", "--state", dir_ + "/state", Seed()}),
                     {"not-an-endpoint"});
  ExpectCleanRefusal(Run({Bin("writer"), "--bind", "not-an-endpoint", "--out", dir_ + "/out"}),
                     {"not-an-endpoint"});
  ExpectCleanRefusal(Run({Bin("fetcher"), "--frontier", "not-an-endpoint", "--user-agent", dir_}),
                     {"not-an-endpoint"});
}

TEST_F(BadConfigTest, UnknownChoicesAreNamed) {
  ExpectCleanRefusal(Run({Bin("writer"), "--format", "nope", "--out", dir_ + "/out"}), {"nope"});
  ExpectCleanRefusal(Run({Bin("fetcher"), "--parser", "nope", "--user-agent", dir_}), {"nope"});
  const auto crawl = Crawl({Seed(), "--out", dir_ + "/out", "--parser", "nope"});
  ExpectCleanRefusal(Run(crawl), {"nope"});
}

// --- config files -------------------------------------------------------------

TEST_F(BadConfigTest, MissingOrWrongConfigFileIsNamed) {
  const std::string missing = dir_ + "/missing.toml";
  ExpectCleanRefusal(Run({Bin("frontier"), "--config", missing, "--summary-file", dir_ + "/s.json", Seed()}), {"missing.toml"});
  const std::string wrong = dir_ + "/wrong.toml";
  std::ofstream(wrong) << "delay-mss = 5\n";
  ExpectCleanRefusal(Run({Bin("writer"), "--config", wrong, "--out", dir_ + "/out"}),
                     {"delay-mss"});
  const auto crawl = Crawl({Seed(), "--out", dir_ + "/out", "--config", wrong});
  ExpectCleanRefusal(Run(crawl), {"delay-mss"});
}

}  // namespace
}  // namespace zcrawl::testing

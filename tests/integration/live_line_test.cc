// `./run crawl`'s output: on a terminal (a pseudo-terminal here) the live
// progress line is drawn, and the processes' log lines never land inside it:
// each starts a line of its own, after the live line was cleared, and the
// live line is drawn again after them. Anywhere else (a file) there are only
// plain lines: no carriage returns, no escape sequences, no padding.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>

#include "tests/support/generated_site.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 60;

std::vector<std::string> CrawlArgs(const ServedSite& site, const std::string& out) {
  // Slow enough (politeness delay) for the live line to be drawn a few times.
  return {SourceDir() + "/run", "crawl", site.server->origin() + "/", "--out", out,
          "--delay-ms", "30", "--per-host", "1", "--log-level", "info", "--fetchers", "2"};
}

// Runs argv on a new pseudo-terminal; everything it wrote, and its exit code.
std::pair<std::string, int> RunOnTerminal(const std::vector<std::string>& argv) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    setenv("ZCRAWL_NO_BUILD", "1", 1);
    setenv("ZCRAWL_BIN_DIR", BinDir().c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    const ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO: every writer closed the terminal
    output.append(buf, static_cast<size_t>(n));
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  return {output, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// A log line of any component: "HH:MM:SS.mmm frontier[PID] info ...".
const std::regex kLogLine(R"(\d\d:\d\d:\d\d\.\d\d\d (frontier|writer|fetcher)\[\d+\] )");
// The live line: "[0:00:01] 31 done  2 failed ...".
const std::regex kLiveLine(R"(^\[\d+:\d\d:\d\d\] \d+ done  \d+ failed)");
const std::regex kLiveLineAnywhere(R"(\[\d+:\d\d:\d\d\] \d+ done  \d+ failed)");

TEST(LiveLineTest, OnATerminalLogLinesPrintAboveTheLiveLineNeverInsideIt) {
  ServedSite site(kPages);
  const std::string dir = MakeTempDir("live-line");
  auto [output, code] = RunOnTerminal(CrawlArgs(site, dir + "/out"));
  ASSERT_EQ(code, 0) << output;
  // The terminal turned "\n" into "\r\n": split on "\n", then undo that.
  size_t log_lines = 0, live_draws = 0, redraws_after_log = 0;
  bool previous_was_log = false;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // A line is made of segments, each after a "\r\033[K" (clear the line).
    std::vector<std::string> segments;
    size_t at = 0;
    while (true) {
      const size_t clear = line.find("\r\033[K", at);
      segments.push_back(line.substr(at, clear == std::string::npos ? std::string::npos : clear - at));
      if (clear == std::string::npos) break;
      at = clear + 4;
    }
    for (size_t i = 0; i < segments.size(); ++i) {
      const std::string& segment = segments[i];
      std::smatch match;
      if (std::regex_search(segment, match, kLogLine)) {
        EXPECT_EQ(match.position(0), 0) << "a log line inside another line: [" << segment << "]";
        EXPECT_FALSE(std::regex_search(segment, kLiveLineAnywhere)) << "live line in a log line: " << segment;
        ++log_lines;
        previous_was_log = true;
      } else if (std::regex_search(segment, kLiveLine)) {
        ++live_draws;
        if (previous_was_log) ++redraws_after_log;
        previous_was_log = false;
      }
    }
  }
  EXPECT_GT(log_lines, 5u) << "the processes logged at info: " << output;
  EXPECT_GT(live_draws, 0u) << "no live line drawn: " << output;
  EXPECT_GT(redraws_after_log, 0u) << "the live line was not drawn again after log lines: " << output;
}

TEST(LiveLineTest, AnythingButATerminalGetsPlainLinesOnly) {
  ServedSite site(kPages);
  const std::string dir = MakeTempDir("plain-lines");
  TestProcess crawl;
  crawl.Start(CrawlArgs(site, dir + "/out"), dir + "/crawl.log",
              {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  ASSERT_EQ(crawl.Wait(120000), std::optional<int>(0));
  const std::string log = ReadFile(dir + "/crawl.log");
  EXPECT_EQ(log.find('\r'), std::string::npos);
  EXPECT_EQ(log.find('\033'), std::string::npos);
  EXPECT_EQ(log.find("   "), std::string::npos) << "padding";
  EXPECT_NE(log.find("crawl: finished"), std::string::npos) << log;
  EXPECT_TRUE(std::regex_search(log, kLogLine)) << log;
}

}  // namespace
}  // namespace zcrawl::testing

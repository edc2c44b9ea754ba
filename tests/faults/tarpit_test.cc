// A server that accepts and never answers, for thousands of connections at
// once (issue 21, point 5): a real crawl (./run crawl) of a page linking to
// 2,000 URLs on 25 ports of a tarpit that accepts every connection and
// never reads or writes. Each URL must end in a counted timeout, the
// fetcher must hold thousands of connections at once without running out
// of file descriptors or memory, and the crawl must end on its own.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/faults/fault_support.h"
#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kPorts = 25;
constexpr int kUrlsPerPort = 80;
constexpr int kUrls = kPorts * kUrlsPerPort;

// Listens on kPorts loopback ports, accepts everything, answers nothing.
class Tarpit {
 public:
  Tarpit() {
    for (int i = 0; i < kPorts; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
      listen(fd, 4096);
      socklen_t length = sizeof address;
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
      ports_.push_back(ntohs(address.sin_port));
      listeners_.push_back(fd);
    }
    thread_ = std::thread([this] { Run(); });
  }
  ~Tarpit() {
    stop_ = true;
    thread_.join();
    for (int fd : listeners_) close(fd);
    for (int fd : held_) close(fd);
  }
  const std::vector<uint16_t>& ports() const { return ports_; }
  int peak_open() const { return peak_open_.load(); }

 private:
  void Run() {
    std::vector<pollfd> fds;
    for (int fd : listeners_) fds.push_back({fd, POLLIN, 0});
    while (!stop_) {
      if (poll(fds.data(), fds.size(), 50) <= 0) continue;
      for (const pollfd& p : fds) {
        if (!(p.revents & POLLIN)) continue;
        const int client = accept4(p.fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (client >= 0) held_.push_back(client);
      }
      // Closed by the fetcher (its timeout): no longer open.
      int open = 0;
      for (int& fd : held_) {
        if (fd < 0) continue;
        pollfd check{fd, POLLRDHUP, 0};
        if (poll(&check, 1, 0) > 0 && (check.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
          close(fd);
          fd = -1;
        } else {
          ++open;
        }
      }
      peak_open_ = std::max(peak_open_.load(), open);
    }
  }

  std::vector<uint16_t> ports_;
  std::vector<int> listeners_;
  std::vector<int> held_;
  std::atomic<bool> stop_{false};
  std::atomic<int> peak_open_{0};
  std::thread thread_;
};

TEST(TarpitTest, ThousandsOfConnectionsThatNeverAnswerEndInCountedTimeouts) {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < 3 * kUrls) {
    GTEST_SKIP() << "the hard limit on open files (" << limit.rlim_max << ") is below this test's needs";
  }
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? 4 * kUrls : limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);

  Tarpit tarpit;
  std::string links;
  for (uint16_t port : tarpit.ports()) {
    for (int i = 0; i < kUrlsPerPort; ++i) {
      links += "<a href=http://127.0.0.1:" + std::to_string(port) + "/" + std::to_string(i) + ">x</a>";
    }
  }
  TestHttpServer server("127.0.0.1", [&](const TestRequest& request) {
    TestResponse response;
    if (request.target != "/") {
      response.status = 404;
      return response;
    }
    response.headers.push_back({"Content-Type", "text/html"});
    response.body = links;
    return response;
  });
  server.Start();
  const std::string dir = MakeTempDir("tarpit");
  TestProcess crawl;
  const auto started = std::chrono::steady_clock::now();
  crawl.Start({SourceDir() + "/run", "crawl", server.origin() + "/", "--out", dir + "/out", "--no-robots",
               "--fetchers", "1", "--threads", std::to_string(kUrls), "--per-host",
               std::to_string(kUrlsPerPort), "--delay-ms", "0", "--retries", "0", "--timeout-ms", "4000",
               "--log-level", "info"},
              dir + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  // The fetcher's memory at the height of it (its peak is read before it exits).
  uint64_t fetcher_peak_kb = 0;
  while (!crawl.Wait(100).has_value()) {
    for (pid_t pid : ChildPids(crawl.pid(), "zcrawl-fetcher")) fetcher_peak_kb = std::max(fetcher_peak_kb, UsageOf(pid).peak_rss_kb);
    if (std::chrono::steady_clock::now() - started > std::chrono::seconds(120)) break;
  }
  auto code = crawl.Wait(1000);
  const std::string log = ReadFile(dir + "/crawl.log");
  ASSERT_TRUE(code.has_value()) << log;
  EXPECT_EQ(*code, 0) << log;
  // Thousands were really held at once: the fault happened.
  EXPECT_GE(tarpit.peak_open(), kUrls * 3 / 4) << log;
  const auto summary = nlohmann::json::parse(ReadFile(dir + "/out/.zcrawl/summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << log;
  // Every held connection ended in a timeout, none in another failure (a
  // fetcher out of file descriptors fails to connect instead).
  EXPECT_EQ(summary["failure_reasons"].value("timeout", 0u), static_cast<uint64_t>(kUrls)) << summary.dump(2);
  EXPECT_EQ(summary["failure_reasons"].size(), 1u) << summary.dump(2);
  EXPECT_EQ(summary["failed"].get<uint64_t>(), static_cast<uint64_t>(kUrls)) << summary.dump(2);
  EXPECT_EQ(summary["done"].get<uint64_t>(), 1u);
  EXPECT_GT(fetcher_peak_kb, 0u);
  EXPECT_LT(fetcher_peak_kb, 256u * 1024) << "fetcher peak RSS in KB";
  RecordProperty("fetcher_peak_rss_kb", std::to_string(fetcher_peak_kb));
  RecordProperty("tarpit_peak_open", std::to_string(tarpit.peak_open()));
  server.Stop();
}

}  // namespace
}  // namespace zcrawl::testing

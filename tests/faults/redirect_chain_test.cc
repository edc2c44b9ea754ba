// Redirect chains that hop across many hosts (issue 21, point 5). A
// redirect is not followed inside one fetch: its target is a new URL for
// the frontier (scope, robots, politeness and the seen set apply), which
// keeps the number of redirects taken to reach it. So a chain, across
// hosts or within one, is bounded by the fetcher's --max-redirects, and
// ends in a counted redirect_limit failure, not in a crawl of every host
// the chain names.
//
// Twelve loopback hosts (127.0.0.11-22); the seed links two chains:
//   hop:  /hop/1 on host 1 -> /hop/2 on host 2 -> ... -> /hop/12 (a page)
//   mix:  /mix/0 -> /mix/1 -> /mix/2 -> /mix/3 on host 1 (same origin),
//         -> /mix/4 on host 2 -> /mix/5 (same origin) -> /mix/6 on host 3
// With --max-redirects 5 the hop chain stores /hop/1-5 as redirects and
// fails /hop/6; the mix chain stores /mix/0-4 as redirects and fails /mix/5
// at its 6th redirect. Hosts past the limit are never contacted.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/frontier_state.h"
#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kHosts = 12;
constexpr int kMaxRedirects = 5;

class RedirectChainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("redirect-chain");
    // Host 0 is the seed's; hosts 1..kHosts carry the chains.
    for (int i = 0; i <= kHosts; ++i) {
      hosts_.push_back(std::make_unique<TestHttpServer>(
          "127.0.0." + std::to_string(10 + i), [this, i](const TestRequest& r) { return Serve(i, r); }));
      hosts_.back()->Start();
    }
  }
  void TearDown() override {
    for (auto& host : hosts_) host->Stop();
  }

  std::string At(int host, const std::string& path) const { return hosts_[host]->origin() + path; }

  static TestResponse Redirect(const std::string& location) {
    TestResponse r;
    r.status = 302;
    r.headers.push_back({"Location", location});
    return r;
  }

  TestResponse Serve(int host, const TestRequest& request) {
    const std::string& t = request.target;
    TestResponse page;
    page.headers.push_back({"Content-Type", "text/html"});
    if (host == 0 && t == "/") {
      page.body = "<a href=\"" + At(1, "/hop/1") + "\">hop</a><a href=\"" + At(1, "/mix/0") + "\">mix</a>";
      return page;
    }
    if (t.starts_with("/hop/")) {
      const int n = std::stoi(t.substr(5));
      if (n == host && n < kHosts) return Redirect(At(n + 1, "/hop/" + std::to_string(n + 1)));
      if (n == host) {
        page.body = "<p>the end of the chain</p>";
        return page;
      }
    }
    if (t.starts_with("/mix/")) {
      const int n = std::stoi(t.substr(5));
      if (host == 1 && n < 3) return Redirect("/mix/" + std::to_string(n + 1));
      if (host == 1 && n == 3) return Redirect(At(2, "/mix/4"));
      if (host == 2 && n == 4) return Redirect("/mix/5");
      if (host == 2 && n == 5) return Redirect(At(3, "/mix/6"));
      if (host == 3 && n == 6) {
        page.body = "<p>the end of the mixed chain</p>";
        return page;
      }
    }
    TestResponse missing;
    missing.status = 404;  // robots.txt too: all allowed
    return missing;
  }

  std::string dir_;
  std::vector<std::unique_ptr<TestHttpServer>> hosts_;
};

TEST_F(RedirectChainTest, AChainAcrossHostsEndsInACountedRedirectLimit) {
  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string summary_path = dir_ + "/summary.json";
  TestProcess frontier, writer, fetcher;
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", frontier_ep, "--scope", "web",
                  "--max-pages-per-domain", "100", "--delay-ms", "0", "--heartbeat-ms", "200",
                  "--summary-file", summary_path, "--state", dir_ + "/state", "--log-level", "debug",
                  At(0, "/")},
                 dir_ + "/frontier.log");
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", writer_ep, "--frontier", frontier_ep, "--out",
                dir_ + "/out", "--heartbeat-ms", "200"},
               dir_ + "/writer.log");
  fetcher.Start({BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep, "--writer", writer_ep, "--threads",
                 "4", "--max-redirects", std::to_string(kMaxRedirects), "--heartbeat-ms", "200"},
                dir_ + "/fetcher.log");
  const auto code = frontier.Wait(60000);
  const std::string frontier_log = ReadFile(dir_ + "/frontier.log");
  ASSERT_TRUE(code.has_value()) << "crawl did not finish\n" << frontier_log;
  EXPECT_EQ(*code, 0) << frontier_log;
  EXPECT_EQ(fetcher.Wait(15000).value_or(-1), 0) << ReadFile(dir_ + "/fetcher.log");
  EXPECT_EQ(writer.Wait(15000).value_or(-1), 0) << ReadFile(dir_ + "/writer.log");

  // Stored: the seed, and each chain's first five (as redirects).
  std::map<std::string, int> want_stored = {{At(0, "/"), 200}};
  for (int n = 1; n <= kMaxRedirects; ++n) want_stored[At(n, "/hop/" + std::to_string(n))] = 302;
  for (int n = 0; n < kMaxRedirects; ++n) want_stored[At(n < 4 ? 1 : 2, "/mix/" + std::to_string(n))] = 302;
  const auto index = ReadIndex(dir_ + "/out");
  std::map<std::string, int> stored;
  for (const auto& [url, entries] : index) {
    EXPECT_EQ(entries.size(), 1u) << url << " stored more than once";
    stored[url] = entries.empty() ? 0 : static_cast<int>(entries[0].status);
  }
  EXPECT_EQ(stored, want_stored);

  // Failed: the hop past the limit, in each chain; nothing else.
  const auto summary = nlohmann::json::parse(ReadFile(summary_path), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(summary.is_discarded()) << frontier_log;
  EXPECT_EQ(summary["failure_reasons"], nlohmann::json({{"redirect_limit", 2}})) << summary.dump(2);
  const std::map<std::string, std::string> expected_failed = {
      {At(kMaxRedirects + 1, "/hop/" + std::to_string(kMaxRedirects + 1)), "redirect_limit"},
      {At(2, "/mix/5"), "redirect_limit"}};
  EXPECT_EQ(FailedUrls(dir_ + "/state"), expected_failed);
  // Every redirect was taken, up to the limit and no further: the hosts
  // past it were never contacted, not even for robots.txt.
  for (int n = 1; n <= kMaxRedirects + 1; ++n) {
    EXPECT_EQ(hosts_[n]->requests_for("/hop/" + std::to_string(n)), 1u) << "host " << n;
  }
  for (int n = kMaxRedirects + 2; n <= kHosts; ++n) {
    EXPECT_EQ(hosts_[n]->total_requests(), 0u) << "host " << n << " was contacted past the limit";
  }
  for (int n = 0; n <= kMaxRedirects; ++n) {
    EXPECT_EQ(hosts_[n < 4 ? 1 : 2]->requests_for("/mix/" + std::to_string(n)), 1u) << "/mix/" << n;
  }
  EXPECT_EQ(hosts_[3]->requests_for("/mix/6"), 0u);
}

}  // namespace
}  // namespace zcrawl::testing

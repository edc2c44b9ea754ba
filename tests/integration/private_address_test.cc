// No crawling into private networks by default (issue 21, point 4): real
// crawls (./run crawl) of a site on 127.0.0.1 whose pages lead to
// non-public addresses by every road there is: an IP link, a link to a
// name that resolves to loopback (the fetchers' --resolve stands in for a
// DNS server), links to 10/8 and fc00::/7, and a redirect to the cloud
// metadata address. The refusals are proved twice: the server never sees
// the refused requests, and the same crawl with --allow-private-addresses
// fetches them.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

class PrivateAddressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& request) {
      const std::string port = std::to_string(server_->port());
      TestResponse response;
      if (request.target == "/robots.txt") {
        response.status = 404;
      } else if (request.target == "/") {
        response.headers.push_back({"Content-Type", "text/html"});
        response.body = "<a href=/same>same</a><a href=/redirect>redirect</a>"
                        "<a href=http://127.0.0.1:" + port + "/by-ip>ip</a>"
                        "<a href=http://meta.test:" + port + "/by-name>name</a>"
                        "<a href=http://10.255.255.1:9/ten>ten</a>"
                        "<a href=http://[fd00::1]:9/ula>ula</a>";
      } else if (request.target == "/redirect") {
        response.status = 302;
        response.headers.push_back({"Location", "http://169.254.169.254/latest/meta-data/"});
      } else {
        response.headers.push_back({"Content-Type", "text/html"});
        response.body = "<p>leaf</p>";
      }
      return response;
    });
    server_->Start();
    dir_ = MakeTempDir("private-address");
  }
  void TearDown() override { server_->Stop(); }

  std::string Port() const { return std::to_string(server_->port()); }

  // Runs a crawl from `seed` with `extra` flags; returns its failure
  // reasons.
  std::map<std::string, uint64_t> Crawl(const std::string& name, const std::string& seed,
                                        std::vector<std::string> extra) {
    out_ = dir_ + "/" + name;
    std::vector<std::string> args = {SourceDir() + "/run", "crawl", seed, "--out", out_,
                                     "--scope", "web", "--max-pages-per-domain", "20",
                                     "--fetchers", "1", "--threads", "4", "--delay-ms", "0",
                                     "--retries", "0", "--connect-timeout-ms", "2000",
                                     "--resolve", "site.test:" + Port() + ":127.0.0.1",
                                     "--resolve", "meta.test:" + Port() + ":127.0.0.1"};
    args.insert(args.end(), extra.begin(), extra.end());
    TestProcess crawl;
    crawl.Start(args, out_ + ".log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
    auto code = crawl.Wait(120000);
    log_ = ReadFile(out_ + ".log");
    EXPECT_TRUE(code.has_value()) << log_;
    std::map<std::string, uint64_t> reasons;
    const auto summary = nlohmann::json::parse(ReadFile(out_ + "/.zcrawl/summary.json"), nullptr, false);
    EXPECT_FALSE(summary.is_discarded()) << log_;
    if (summary.is_discarded()) return reasons;
    for (const auto& [reason, n] : summary["failure_reasons"].items()) reasons[reason] = n.get<uint64_t>();
    return reasons;
  }

  std::unique_ptr<TestHttpServer> server_;
  std::string dir_;
  std::string out_;
  std::string log_;
};

TEST_F(PrivateAddressTest, ANamedSeedReachesItsOwnHostAndNothingElsePrivate) {
  auto reasons = Crawl("named", "http://site.test:" + Port() + "/", {});
  // by-ip, by-name, ten, ula and the metadata redirect's target.
  EXPECT_EQ(reasons["private_address"], 5u) << log_;
  EXPECT_EQ(server_->requests_for("/same"), 1u) << log_;
  EXPECT_EQ(server_->requests_for("/redirect"), 1u);
  // Never connected to: the loopback server would have seen these.
  EXPECT_EQ(server_->requests_for("/by-ip"), 0u);
  EXPECT_EQ(server_->requests_for("/by-name"), 0u);
  EXPECT_EQ(server_->requests_for("/robots.txt"), 1u) << "only site.test's robots.txt may be asked for";
  auto index = ReadIndex(out_);
  EXPECT_EQ(index.count("http://site.test:" + Port() + "/same"), 1u);
  EXPECT_EQ(index.count("http://127.0.0.1:" + Port() + "/by-ip"), 0u);
}

TEST_F(PrivateAddressTest, AllowPrivateAddressesReachesThem) {
  // The same crawl opened up, with 10/8, fc00::/7 and the metadata address
  // denied by pattern, so this test never sends a packet off this machine.
  auto reasons = Crawl("allowed", "http://site.test:" + Port() + "/",
                       {"--allow-private-addresses", "--deny", "^http://(10\\.|\\[fd|169\\.254\\.)"});
  EXPECT_EQ(reasons.count("private_address"), 0u) << log_;
  EXPECT_EQ(server_->requests_for("/by-ip"), 1u) << log_;
  EXPECT_EQ(server_->requests_for("/by-name"), 1u);
  EXPECT_EQ(server_->requests_for("/robots.txt"), 3u);  // site.test, 127.0.0.1, meta.test
}

TEST_F(PrivateAddressTest, ALoopbackSeedOpensLoopbackOnly) {
  auto reasons = Crawl("loopback", server_->origin() + "/", {});
  // A seed at 127.0.0.1 opens 127.0.0.0/8, so meta.test (resolved there)
  // is reached too; 10/8, fc00::/7 and the metadata address are not.
  EXPECT_EQ(reasons["private_address"], 3u) << log_;
  EXPECT_EQ(server_->requests_for("/by-ip"), 1u) << log_;
  EXPECT_EQ(server_->requests_for("/by-name"), 1u);
  EXPECT_EQ(server_->requests_for("/same"), 1u);
}

}  // namespace
}  // namespace zcrawl::testing

// Names that do not exist (issue 21, point 5): a page links to thousands of
// hosts whose names no DNS server knows. The crawl runs in a network
// namespace of its own (tests/support/netns.h) whose resolv.conf names a
// DNS server in this test that answers every query NXDOMAIN, so the
// lookups fail at once and never leave the machine.
//
// Each such origin must end in a counted failure with the DNS reason
// (robots_unavailable: dns_not_found, its robots.txt being the first thing
// asked), every name must really have been asked (the fault happened), the
// good pages must be stored, and the fetcher's threads, open files and
// memory must stay bounded while thousands of lookups fail (libcurl's
// threaded resolver starts a thread per lookup: none may be left behind).
//
// Needs root and iproute2; skipped with the reason elsewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/faults/fault_support.h"
#include "tests/support/frontier_state.h"
#include "tests/support/crawl_output.h"
#include "tests/support/netns.h"
#include "tests/support/nxdomain_dns_server.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr char kSubnet[] = "10.215.0";
constexpr int kMissingNames = 2000;
constexpr int kGoodPages = 20;
constexpr int kThreads = 32;
constexpr char kMissingDomain[] = "zcrawl.invalid";

std::string MissingHost(int i) { return "nx-" + std::to_string(i) + "." + kMissingDomain; }

TestResponse Page(std::string body) {
  TestResponse r;
  r.headers.push_back({"Content-Type", "text/html"});
  r.body = std::move(body);
  return r;
}

// The site: its home links every missing host and the good pages.
TestResponse ServeSite(const TestRequest& request) {
  if (request.target == "/") {
    std::string h = "<html><body>";
    for (int i = 0; i < kMissingNames; ++i) h += "<a href=\"http://" + MissingHost(i) + "/\">x</a>\n";
    for (int i = 0; i < kGoodPages; ++i) h += "<a href=\"/ok/" + std::to_string(i) + ".html\">ok</a>\n";
    return Page(h + "</body></html>");
  }
  if (request.target.starts_with("/ok/")) return Page("<html><body>good</body></html>");
  TestResponse r;
  r.status = 404;  // robots.txt too: all allowed
  return r;
}

TEST(DnsFailureTest, ThousandsOfNamesThatDoNotExistFailWithTheDnsReasonAndLeakNothing) {
  NetnsLan::RemoveStale();
  const std::string dir = MakeTempDir("dns-failure");
  auto lan = NetnsLan::Create(kSubnet, dir + "/ip");
  if (!lan.ok() && lan.status().code() == StatusCode::kUnavailable) {
    GTEST_SKIP() << "network namespaces are not available here: " << lan.status().message();
  }
  ASSERT_TRUE(lan.ok()) << lan.status().ToString();
  auto address = (*lan)->AddHost("crawl", 10);
  if (!address.ok() && address.status().code() == StatusCode::kUnavailable) {
    GTEST_SKIP() << "virtual network links are not available here: " << address.status().message();
  }
  ASSERT_TRUE(address.ok()) << address.status().ToString();
  ASSERT_TRUE((*lan)->SetResolvConf("crawl", "nameserver " + *address + "\noptions timeout:1 attempts:1\n").ok());

  std::unique_ptr<NxdomainDnsServer> dns;
  std::unique_ptr<TestHttpServer> site;
  {
    auto inside = (*lan)->Enter("crawl");
    ASSERT_TRUE(inside.ok()) << inside.status().ToString();
    dns = std::make_unique<NxdomainDnsServer>(*address);
    site = std::make_unique<TestHttpServer>(*address, ServeSite);
    site->Start();
  }

  const std::string frontier_ep = "tcp://" + *address + ":5570";
  const std::string writer_ep = "tcp://" + *address + ":5571";
  const std::string summary_path = dir + "/summary.json";
  TestProcess frontier, writer, fetcher;
  frontier.Start((*lan)->Exec("crawl", {BinDir() + "/zcrawl-frontier", "--bind", frontier_ep, "--insecure",
                                        "--allow-domain", kMissingDomain, "--delay-ms", "0", "--per-host", "4",
                                        "--retries", "1", "--retry-base-ms", "100", "--heartbeat-ms", "200",
                                        "--summary-file", summary_path, "--state", dir + "/state",
                                        "--log-level", "debug", site->origin() + "/"}),
                 dir + "/frontier.log");
  writer.Start((*lan)->Exec("crawl", {BinDir() + "/zcrawl-writer", "--bind", writer_ep, "--insecure",
                                      "--frontier", frontier_ep, "--out", dir + "/out", "--heartbeat-ms", "200"}),
               dir + "/writer.log");
  fetcher.Start((*lan)->Exec("crawl", {BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep, "--writer",
                                       writer_ep, "--threads", std::to_string(kThreads), "--heartbeat-ms", "200"}),
                dir + "/fetcher.log");

  // The fetcher's threads and open files at their height, sampled while
  // the lookups fail.
  ProcessUsage peak;
  std::optional<int> frontier_code;
  const int64_t deadline = SteadyNowMs() + 120000;
  while (!(frontier_code = frontier.Wait(20)) && SteadyNowMs() < deadline) {
    const ProcessUsage now = UsageOf(fetcher.pid());
    peak.threads = std::max(peak.threads, now.threads);
    peak.open_files = std::max(peak.open_files, now.open_files);
    peak.peak_rss_kb = std::max(peak.peak_rss_kb, now.peak_rss_kb);
  }
  auto logs = [&] {
    return ReadFile(dir + "/frontier.log") + "--- fetcher\n" + ReadFile(dir + "/fetcher.log");
  };
  ASSERT_TRUE(frontier_code.has_value()) << "crawl did not finish\n" << logs();
  EXPECT_EQ(*frontier_code, 0) << logs();
  EXPECT_EQ(fetcher.Wait(15000).value_or(-1), 0) << logs();
  EXPECT_EQ(writer.Wait(15000).value_or(-1), 0) << ReadFile(dir + "/writer.log");
  site->Stop();

  // Every missing name was really asked, of our DNS server only.
  const std::set<std::string> asked = dns->names();
  int missing_asked = 0;
  for (int i = 0; i < kMissingNames; ++i) missing_asked += asked.count(MissingHost(i)) > 0;
  EXPECT_EQ(missing_asked, kMissingNames);
  EXPECT_EQ(dns->malformed(), 0u);

  const auto summary = nlohmann::json::parse(ReadFile(summary_path), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(summary.is_discarded()) << logs();
  std::map<std::string, uint64_t> reasons;
  for (const auto& [name, n] : summary["failure_reasons"].items()) reasons[name] = n.get<uint64_t>();
  const std::map<std::string, uint64_t> expected = {{"robots_unavailable: dns_not_found", kMissingNames}};
  EXPECT_EQ(reasons, expected);
  EXPECT_EQ(summary["done"].get<uint64_t>(), static_cast<uint64_t>(1 + kGoodPages));
  EXPECT_EQ(ReadIndex(dir + "/out").size(), static_cast<size_t>(1 + kGoodPages));
  const std::map<std::string, std::string> failed = FailedUrls(dir + "/state");
  EXPECT_EQ(failed.size(), static_cast<size_t>(kMissingNames));
  const auto first = failed.find("http://" + MissingHost(0) + "/");
  ASSERT_NE(first, failed.end());
  EXPECT_EQ(first->second, "robots_unavailable: dns_not_found");

  // Bounded while thousands of lookups failed: at most one resolver thread
  // and a few descriptors per transfer in flight, and little memory.
  EXPECT_GT(peak.threads, 0);
  EXPECT_LE(peak.threads, 2 * kThreads + 16) << "fetcher threads";
  EXPECT_LE(peak.open_files, 4 * kThreads + 64) << "fetcher open files";
  EXPECT_LT(peak.peak_rss_kb, 128u * 1024) << "fetcher peak RSS in KB";
  RecordProperty("fetcher_peak_threads", std::to_string(peak.threads));
  RecordProperty("fetcher_peak_open_files", std::to_string(peak.open_files));
  RecordProperty("fetcher_peak_rss_kb", std::to_string(peak.peak_rss_kb));
  RecordProperty("dns_queries", std::to_string(dns->queries()));
}

}  // namespace
}  // namespace zcrawl::testing

// A site that would never end without the frontier's trap guards: every
// page links its catalogue with fresh session ids (;jsessionid=, PHPSESSID,
// sid), a search link with too many parameters, and a loop of relative
// links (/trap/ -> /trap/x/y/ -> /trap/x/y/x/y/ ...). Judged by what the
// server saw: each catalogue page fetched once (with the session id it was
// first found with), the loop followed only while no segment repeats past
// --max-path-repeat, the search never asked; and the refusals counted by
// reason in the summary.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kItems = 20;
constexpr int kSearchParams = 33;  // one past the default --max-query-params

// A fresh session id per call, as a server hands one to every visitor.
std::string FreshId(std::atomic<uint64_t>& next) { return "S" + std::to_string(1000000000000000 + next++) + "ab"; }

std::string ItemPage(int item, std::atomic<uint64_t>& ids) {
  std::string links = "<a href=\"/item/" + std::to_string(item) + ";jsessionid=" + FreshId(ids) + "\">me</a>\n";
  links += "<a href=\"/item/" + std::to_string(item) + "?sid=" + FreshId(ids) + "\">me again</a>\n";
  if (item + 1 < kItems) {
    links += "<a href=\"/item/" + std::to_string(item + 1) + "?PHPSESSID=" + FreshId(ids) + "\">next</a>\n";
  }
  std::string search = "/search?";
  for (int p = 0; p < kSearchParams; ++p) search += (p ? "&f" : "f") + std::to_string(p) + "=1";
  links += "<a href=\"" + search + "\">search</a>\n";
  return "<html><body>" + links + "</body></html>";
}

// The catalogue page a request target names, whatever session id it
// carries; -1 for another page.
int ItemOf(const std::string& target) {
  if (target.rfind("/item/", 0) != 0) return -1;
  return std::stoi(target.substr(6));
}

TEST(TrapsE2eTest, SessionIdsAndARepeatingPathAreVisitedBoundedAndCounted) {
  std::atomic<uint64_t> ids{0};
  TestHttpServer server("127.0.0.1", [&](const TestRequest& request) {
    TestResponse response;
    response.headers = {{"Content-Type", "text/html"}};
    const std::string& target = request.target;
    if (target == "/") {
      response.body = "<html><body><a href=\"/item/0\">shop</a> <a href=\"/trap/\">archive</a></body></html>";
    } else if (ItemOf(target) >= 0) {
      response.body = ItemPage(ItemOf(target), ids);
    } else if (target.rfind("/trap/", 0) == 0) {
      response.body = "<html><body><a href=\"x/y/\">deeper</a></body></html>";
    } else {
      response.status = 404;
    }
    return response;
  });
  server.Start();
  const std::string dir = MakeTempDir("traps_e2e");
  TestProcess crawl;
  // --max-pages bounds the crawl should the guards fail (the test then
  // fails on the counts instead of running for ever).
  crawl.Start({SourceDir() + "/run", "crawl", server.origin() + "/", "--out", dir + "/out", "--fetchers", "1",
               "--delay-ms", "0", "--per-host", "4", "--max-pages", "300"},
              dir + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  ASSERT_EQ(crawl.Wait(180000).value_or(-1), 0) << ReadFile(dir + "/crawl.log");

  std::map<int, uint64_t> item_requests;
  uint64_t trap_requests = 0, search_requests = 0;
  for (const auto& [target, count] : server.request_counts()) {
    if (const int item = ItemOf(target); item >= 0) item_requests[item] += count;
    if (target.rfind("/trap/", 0) == 0) trap_requests += count;
    if (target.rfind("/search", 0) == 0) search_requests += count;
    // The URL fetched is the one found: session ids reach the server.
    if (ItemOf(target) > 0) {
      EXPECT_NE(target.find("?PHPSESSID="), std::string::npos) << target;
    }
  }
  EXPECT_EQ(item_requests.size(), static_cast<size_t>(kItems));
  for (const auto& [item, count] : item_requests) EXPECT_EQ(count, 1u) << "/item/" << item;
  // /trap/, /trap/x/y/, /trap/x/y/x/y/, /trap/x/y/x/y/x/y/: a fourth x is refused.
  EXPECT_EQ(trap_requests, 4u);
  EXPECT_EQ(search_requests, 0u);

  const auto summary = nlohmann::json::parse(ReadFile(dir + "/out/.zcrawl/summary.json"), nullptr, false);
  ASSERT_TRUE(summary.is_object()) << ReadFile(dir + "/out/.zcrawl/summary.json");
  EXPECT_EQ(summary["links"]["path_repeat"].get<uint64_t>(), 1u);
  EXPECT_EQ(summary["links"]["query_params"].get<uint64_t>(), static_cast<uint64_t>(kItems));
  // Each item page's links to itself carry a session id twice.
  EXPECT_GE(summary["links"]["canonicalized"].get<uint64_t>(), 2u * kItems);
  EXPECT_EQ(summary["done"].get<uint64_t>(), 1u + kItems + 4u);
}

}  // namespace
}  // namespace zcrawl::testing

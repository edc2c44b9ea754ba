// ConsoleServer over real HTTP: the page, the published snapshot and
// metrics, a control handed to the broker's side and answered, bad
// controls refused, and the token asked for beyond loopback (kept 0600).
#include "frontier/console/console_server.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <thread>

#include "common/clock.h"
#include "tests/support/http_call.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

using zcrawl::testing::HttpCall;

const std::vector<std::string> kJson = {"Content-Type: application/json"};

TEST(ConsoleServerTest, ServesThePageTheSnapshotAndHandsControlsToTheBroker) {
  RealClock clock;
  auto console = ConsoleServer::Start("127.0.0.1", 0, "", clock);
  ASSERT_TRUE(console.ok()) << console.status().message();
  ConsoleServer& server = **console;
  const std::string base = server.url(/*with_token=*/false);
  EXPECT_EQ(base, "http://127.0.0.1:" + std::to_string(server.port()) + "/");

  auto page = HttpCall("GET", base);
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<title>zcrawl console</title>"), std::string::npos);
  EXPECT_EQ(page.body.find("http://"), std::string::npos) << "no external resource";
  EXPECT_EQ(server.last_request_ms() > 0, true);

  server.PublishSnapshot("{\"status\":{\"paused\":false}}");
  server.PublishMetrics("zcrawl_frontier_urls_done_total 7\n");
  EXPECT_EQ(HttpCall("GET", base + "api/status").body, "{\"status\":{\"paused\":false}}");
  EXPECT_NE(HttpCall("GET", base + "metrics").body.find("zcrawl_frontier_urls_done_total 7"), std::string::npos);
  EXPECT_EQ(HttpCall("GET", base + "nothing").status, 404);
  EXPECT_EQ(HttpCall("GET", base + "api/control").status, 405);

  // The broker's side: takes the control from the inbox and answers it.
  std::atomic<bool> stop{false};
  v1::Control received;
  std::string client;
  std::thread broker([&] {
    while (!stop) {
      std::vector<ConsoleControl> items;
      server.inbox().Drain(items);
      for (auto& item : items) {
        received = item.control;
        client = item.client;
        item.answer->set_value(item.control.has_block() ? "blocked spam.test" : "refused: no");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  auto blocked = HttpCall("POST", base + "api/control", R"({"verb":"block","target":"spam.test","note":"n"})", kJson);
  EXPECT_EQ(blocked.status, 200);
  EXPECT_NE(blocked.body.find("\"ok\":true"), std::string::npos) << blocked.body;
  EXPECT_NE(blocked.body.find("blocked spam.test"), std::string::npos) << blocked.body;
  EXPECT_EQ(received.block().target().domain(), "spam.test");
  EXPECT_EQ(received.note(), "n");
  EXPECT_EQ(client, "console:127.0.0.1");
  auto refused = HttpCall("POST", base + "api/control", R"({"verb":"pause"})", kJson);
  EXPECT_NE(refused.body.find("\"ok\":false"), std::string::npos) << refused.body;
  stop = true;
  broker.join();

  // No cross-site controls: a form or a no-preflight fetch from a page
  // elsewhere cannot send JSON; and a name that is not this machine's
  // (DNS rebinding) is refused everything.
  auto form = HttpCall("POST", base + "api/control", R"({"verb":"pause"})", {"Content-Type: text/plain"});
  EXPECT_EQ(form.status, 415) << form.body;
  EXPECT_EQ(HttpCall("GET", base + "api/status", "", {"Host: evil.example:80"}).status, 403);
  EXPECT_EQ(HttpCall("POST", base + "api/control", R"({"verb":"pause"})", {"Host: evil.example", kJson[0]}).status, 403);
  EXPECT_EQ(HttpCall("GET", base + "api/status", "", {"Host: localhost:1234"}).status, 200);

  for (const char* bad : {"not json", "{}", R"({"verb":"fly"})", R"({"verb":"block"})",
                          R"({"verb":"block","target":"re:(["})", R"({"verb":"threads"})"}) {
    auto answer = HttpCall("POST", base + "api/control", bad, kJson);
    EXPECT_EQ(answer.status, 400) << bad;
    EXPECT_NE(answer.body.find("refused: "), std::string::npos) << bad << ": " << answer.body;
  }
}

TEST(ConsoleServerTest, BeyondLoopbackEveryCallNeedsTheTokenKeptPrivate) {
  RealClock clock;
  const std::string dir = zcrawl::testing::MakeTempDir("console_token");
  // 0.0.0.0: every address of this machine, so beyond loopback, and still
  // reachable here on 127.0.0.1.
  auto console = ConsoleServer::Start("0.0.0.0", 0, dir + "/console.token", clock);
  ASSERT_TRUE(console.ok()) << console.status().message();
  const std::string token = zcrawl::testing::ReadFile(dir + "/console.token").substr(0, 32);
  ASSERT_EQ(token.size(), 32u);
  struct stat st{};
  ASSERT_EQ(stat((dir + "/console.token").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE((*console)->url(/*with_token=*/true).find("#token=" + token), std::string::npos);

  const std::string base = "http://127.0.0.1:" + std::to_string((*console)->port()) + "/";
  EXPECT_EQ(HttpCall("GET", base).status, 200) << "the page holds no data; it asks for the token";
  EXPECT_EQ(HttpCall("GET", base + "api/status").status, 401);
  EXPECT_EQ(HttpCall("GET", base + "api/status", "", {"Authorization: Bearer wrong"}).status, 401);
  EXPECT_EQ(HttpCall("GET", base + "api/status", "", {"Authorization: Bearer " + token}).status, 200);
  EXPECT_EQ(HttpCall("GET", base + "metrics?token=" + token).status, 200);
  EXPECT_EQ(HttpCall("POST", base + "api/control", R"({"verb":"pause"})", kJson).status, 401);

  // A restart keeps the token.
  console->reset();
  auto again = ConsoleServer::Start("0.0.0.0", 0, dir + "/console.token", clock);
  ASSERT_TRUE(again.ok());
  EXPECT_NE((*again)->url(true).find(token), std::string::npos);
}

}  // namespace
}  // namespace zcrawl::frontier

// HttpService on libmicrohttpd, over real loopback HTTP: requests reach the
// handler with their method, path, query, headers and body; HEAD has no
// body; a body past the limit is refused 413 before the handler sees it;
// a handler's exception is a 500, not a crash; a stalled client holds only
// its own connection.
#include "common/http_service.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "tests/support/http_call.h"

namespace zcrawl {
namespace {

using zcrawl::testing::HttpCall;

TEST(HttpServiceTest, RoutesWhatTheClientSentAndAnswersWhatTheHandlerSays) {
  HttpRequest seen;
  std::atomic<int> calls{0};
  auto service = HttpService::Start("127.0.0.1", 0, [&](const HttpRequest& request) {
    ++calls;
    seen = request;
    if (request.path == "/boom") throw std::runtime_error("boom");
    return HttpResponse{201, "application/json", "{\"path\":\"" + request.path + "\"}", {{"X-Zcrawl", "yes"}}};
  });
  ASSERT_TRUE(service.ok()) << service.status().message();
  const std::string base = "http://127.0.0.1:" + std::to_string((*service)->port());
  ASSERT_NE((*service)->port(), 0);

  auto get = HttpCall("GET", base + "/api/x?token=abc&n=2", "", {"Authorization: Bearer t"});
  EXPECT_EQ(get.status, 201);
  EXPECT_EQ(get.body, "{\"path\":\"/api/x\"}");
  EXPECT_EQ(seen.method, "GET");
  EXPECT_EQ(seen.query["token"], "abc");
  EXPECT_EQ(seen.query["n"], "2");
  EXPECT_EQ(seen.headers["authorization"], "Bearer t") << "header names lower-cased";
  EXPECT_EQ(seen.client, "127.0.0.1");

  auto post = HttpCall("POST", base + "/api/control", "{\"verb\":\"pause\"}");
  EXPECT_EQ(post.status, 201);
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.body, "{\"verb\":\"pause\"}");

  auto head = HttpCall("HEAD", base + "/");
  EXPECT_EQ(head.status, 201);
  EXPECT_TRUE(head.body.empty());

  const int before = calls;
  auto big = HttpCall("POST", base + "/api/control", std::string(HttpService::kMaxBodyBytes + 1, 'x'));
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(calls, before) << "the handler never saw the oversized body";

  auto boom = HttpCall("GET", base + "/boom");
  EXPECT_EQ(boom.status, 500);
  EXPECT_NE(boom.body.find("boom"), std::string::npos);
  EXPECT_EQ(HttpCall("GET", base + "/").status, 201) << "still serving after a handler threw";
}

// A client that sends half a request and stalls (or a few of them) holds
// its own connection only: the others are answered at once.
TEST(HttpServiceTest, StalledClientsDoNotHoldBackTheOthers) {
  auto service = HttpService::Start("127.0.0.1", 0, [](const HttpRequest&) {
    return HttpResponse{200, "text/plain", "ok", {}};
  });
  ASSERT_TRUE(service.ok());
  const uint16_t port = (*service)->port();
  std::vector<int> stalled;
  for (int i = 0; i < 4; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string half = "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ";
    ASSERT_EQ(write(fd, half.data(), half.size()), static_cast<ssize_t>(half.size()));
    stalled.push_back(fd);
  }
  const auto start = std::chrono::steady_clock::now();
  auto answer = HttpCall("GET", "http://127.0.0.1:" + std::to_string(port) + "/");
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, "ok");
  EXPECT_LT(took, std::chrono::seconds(2)) << "a stalled client held the others back";
  for (int fd : stalled) close(fd);
}

TEST(HttpServiceTest, ABadAddressOrAPortInUseIsAClearError) {
  EXPECT_FALSE(HttpService::Start("not-an-address", 0, [](const HttpRequest&) { return HttpResponse{}; }).ok());
  auto first = HttpService::Start("127.0.0.1", 0, [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_TRUE(first.ok());
  auto second = HttpService::Start("127.0.0.1", (*first)->port(), [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(std::to_string((*first)->port())), std::string::npos);
}

}  // namespace
}  // namespace zcrawl

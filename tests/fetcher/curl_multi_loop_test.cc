// CurlMultiLoop tests against a loopback TestHttpServer: many transfers in
// flight on the loop's one thread, never more than allowed, each answer
// given to its own request, connections reused, and Stop dropping what is
// unfinished without calling back. (How each kind of HTTP answer is read is
// tested through both drivers in page_processor_test.)
#include "fetcher/curl_multi_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_http_server.h"

namespace zcrawl::fetcher {
namespace {

using ::zcrawl::testing::TestHttpServer;
using ::zcrawl::testing::TestRequest;
using ::zcrawl::testing::TestResponse;

// Collects the answers the loop hands back, by URL.
class Answers {
 public:
  CurlMultiLoop::Done For(const std::string& url) {
    return [this, url](HttpResponse response) {
      std::lock_guard lock(mu_);
      by_url_[url] = std::move(response);
      ++calls_;
      changed_.notify_all();
    };
  }
  bool WaitFor(size_t count, std::chrono::seconds limit = std::chrono::seconds(20)) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, limit, [&] { return calls_ >= count; });
  }
  size_t calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  HttpResponse Of(const std::string& url) const {
    std::lock_guard lock(mu_);
    auto it = by_url_.find(url);
    return it == by_url_.end() ? HttpResponse{} : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, HttpResponse> by_url_;
  size_t calls_ = 0;
};

// Each path answers with its own name as the body, after delay_ms_for(path).
TestHttpServer EchoServer(std::function<int(const std::string& target)> delay_ms_for) {
  return TestHttpServer("127.0.0.1", [delay_ms_for = std::move(delay_ms_for)](const TestRequest& request) {
    TestResponse response;
    response.body = "body of " + request.target;
    response.delay_ms = delay_ms_for(request.target);
    return response;
  });
}
TestHttpServer EchoServer(int delay_ms) {
  return EchoServer([delay_ms](const std::string&) { return delay_ms; });
}

HttpOptions TestHttpOptions() {
  HttpOptions options;
  options.connect_timeout_ms = 2000;
  options.total_timeout_ms = 20000;
  return options;
}

HttpRequest Get(const std::string& url) {
  HttpRequest request;
  request.url = url;
  return request;
}

// Submits GETs of ORIGIN/PREFIX0 .. ORIGIN/PREFIX(n-1); false if one was refused.
bool SubmitPaths(CurlMultiLoop& loop, const std::string& origin, const std::string& prefix, int n,
                 Answers& answers) {
  for (int i = 0; i < n; ++i) {
    const std::string url = origin + "/" + prefix + std::to_string(i);
    if (!loop.Submit(Get(url), answers.For(url))) return false;
  }
  return true;
}

TEST(CurlMultiLoopTest, AllowedTransfersRunAtOnceOnOneThreadEachWithItsOwnAnswer) {
  TestHttpServer server = EchoServer(300);
  server.Start();
  const HttpOptions options = TestHttpOptions();
  CurlMultiLoop loop(options, 32);
  ASSERT_TRUE(loop.Start().ok());
  Answers answers;
  ASSERT_TRUE(SubmitPaths(loop, server.origin(), "p", 32, answers));
  ASSERT_TRUE(answers.WaitFor(32));
  // Every request was in progress at the server at the same moment.
  EXPECT_EQ(server.peak_in_progress(), 32);
  for (int i = 0; i < 32; ++i) {
    const std::string url = server.origin() + "/p" + std::to_string(i);
    const HttpResponse r = answers.Of(url);
    EXPECT_EQ(r.status, v1::FETCH_STATUS_OK) << url << " " << r.error;
    EXPECT_EQ(r.http_status, 200u);
    EXPECT_EQ(r.body, "body of /p" + std::to_string(i));
    EXPECT_EQ(r.final_url, url);
  }
  EXPECT_EQ(loop.in_flight(), 0u);
}

TEST(CurlMultiLoopTest, NeverMoreThanMaxInFlightAndTheRestWaitsItsTurn) {
  TestHttpServer server = EchoServer(100);
  server.Start();
  const HttpOptions options = TestHttpOptions();
  CurlMultiLoop loop(options, 1);
  ASSERT_TRUE(loop.Start().ok());
  loop.SetMaxInFlight(3);
  Answers answers;
  ASSERT_TRUE(SubmitPaths(loop, server.origin(), "q", 12, answers));
  ASSERT_TRUE(answers.WaitFor(12));
  EXPECT_EQ(server.peak_in_progress(), 3);
  EXPECT_EQ(server.total_requests(), 12u);
  EXPECT_EQ(answers.Of(server.origin() + "/q11").body, "body of /q11");
}

TEST(CurlMultiLoopTest, KeepAliveConnectionsAreReusedAcrossTransfers) {
  TestHttpServer server = EchoServer(0);
  server.Start();
  const HttpOptions options = TestHttpOptions();
  CurlMultiLoop loop(options, 2);
  ASSERT_TRUE(loop.Start().ok());
  Answers answers;
  ASSERT_TRUE(SubmitPaths(loop, server.origin(), "k", 40, answers));
  ASSERT_TRUE(answers.WaitFor(40));
  EXPECT_EQ(server.total_requests(), 40u);
  // Two at a time need two connections; a few more if a request started
  // while a finished one's connection was still being returned.
  EXPECT_LE(server.connections_accepted(), 4u);
}

// A crawl's transfers come in waves: many at once, then few while the next
// URLs are on their way, then many again. The connections of the first
// wave must still be there for the next. libcurl's default cache keeps
// four connections per transfer running when one ends, so the quiet spell
// closed them (~9% of the requests reconnected at 512 in flight,
// bench/RESULTS.md run AI).
TEST(CurlMultiLoopTest, ConnectionsOutlastAQuietSpellBetweenWaves) {
  // A wave's requests wait at the server long enough to be there at once;
  // the quiet spell's are answered at once.
  TestHttpServer server = EchoServer(
      [](const std::string& target) { return target.find("quiet") != std::string::npos ? 0 : 300; });
  server.Start();
  const HttpOptions options = TestHttpOptions();
  constexpr int kWave = 64;
  CurlMultiLoop loop(options, kWave);
  ASSERT_TRUE(loop.Start().ok());
  Answers answers;
  size_t expected = 0;
  ASSERT_TRUE(SubmitPaths(loop, server.origin(), "first", kWave, answers));
  ASSERT_TRUE(answers.WaitFor(expected += kWave));
  ASSERT_EQ(server.peak_in_progress(), kWave);  // the wave needed kWave connections
  for (int i = 0; i < kWave; ++i) {             // the quiet spell: one at a time
    ASSERT_TRUE(SubmitPaths(loop, server.origin(), "quiet" + std::to_string(i) + "-", 1, answers));
    ASSERT_TRUE(answers.WaitFor(++expected));
  }
  ASSERT_TRUE(SubmitPaths(loop, server.origin(), "second", kWave, answers));
  ASSERT_TRUE(answers.WaitFor(expected += kWave));
  EXPECT_EQ(server.total_requests(), expected);
  // The second wave reused the first one's connections (a few more for
  // requests started while a finished one's connection was being returned).
  EXPECT_LE(server.connections_accepted(), static_cast<uint64_t>(kWave + kWave / 8));
}

// A crawl rotates over more origins than it has transfers. Each origin's
// connection must still be open at its next turn, or every request pays a
// TCP and TLS handshake (issue 51: 5 connections per host over 1,000 hosts
// with 64 in flight). The cache of twice the transfers alone loses them,
// which the second loop shows happening.
TEST(CurlMultiLoopTest, ConnectionsOutlastTheRotationOverManyOrigins) {
  constexpr int kOrigins = 24;
  std::vector<std::unique_ptr<TestHttpServer>> servers;
  for (int i = 0; i < kOrigins; ++i) {
    servers.push_back(std::make_unique<TestHttpServer>("127.0.0.1", [](const TestRequest& request) {
      TestResponse response;
      response.body = "body of " + request.target;
      return response;
    }));
    servers.back()->Start();
  }
  // Two rounds of one request per origin, two at a time; the connections
  // the servers accepted in all.
  auto connections_for = [&](uint32_t keep_connections) {
    uint64_t before = 0;
    for (const auto& server : servers) before += server->connections_accepted();
    HttpOptions options = TestHttpOptions();
    options.keep_connections = keep_connections;
    CurlMultiLoop loop(options, 2);
    EXPECT_TRUE(loop.Start().ok());
    Answers answers;
    for (int round = 0; round < 2; ++round) {
      for (const auto& server : servers) {
        EXPECT_TRUE(SubmitPaths(loop, server->origin(), "r" + std::to_string(round) + "-", 1, answers));
      }
      EXPECT_TRUE(answers.WaitFor((round + 1) * kOrigins));
    }
    uint64_t after = 0;
    for (const auto& server : servers) after += server->connections_accepted();
    return after - before;
  };
  EXPECT_LE(connections_for(HttpOptions{}.keep_connections), uint64_t{kOrigins + 2})
      << "the second round reused the first one's connections";
  EXPECT_GE(connections_for(0), uint64_t{2 * kOrigins - 4}) << "twice the transfers: the fault this is about";
}

TEST(CurlMultiLoopTest, KeptConnectionsStayWithinTheOpenFilesLeftToThem) {
  EXPECT_EQ(KeptConnections(1024, 64, 1 << 20), 1024u);
  EXPECT_EQ(KeptConnections(0, 64, 1 << 20), 128u) << "never below twice the transfers";
  EXPECT_EQ(KeptConnections(1024, 64, 1024), 1024u - 128 - 256) << "the running transfers' sockets first";
  EXPECT_EQ(KeptConnections(1024, 64, 300), 128u);
  // Fetchers sharing a process (--single-process) share its limit after
  // the frontier's and the writer's files.
  EXPECT_EQ(FetcherOpenFilesShare(3072, 2, 1024), 1024u);
  EXPECT_EQ(KeptConnections(1024, 64, FetcherOpenFilesShare(3072, 2, 1024)), 1024u - 128 - 256);
  EXPECT_EQ(FetcherOpenFilesShare(UINT64_MAX, 2, 1024), 0u) << "unlimited: each counts on the whole";
  EXPECT_EQ(FetcherOpenFilesShare(1000, 2, 1024), 1u);
}

TEST(CurlMultiLoopTest, StopDropsUnfinishedTransfersWithoutCallingBack) {
  TestHttpServer server("127.0.0.1", [](const TestRequest&) {
    TestResponse response;
    response.endless_chunk_bytes = 64;
    response.endless_chunk_interval_ms = 20;
    return response;
  });
  server.Start();
  const HttpOptions options = TestHttpOptions();
  Answers answers;
  {
    CurlMultiLoop loop(options, 4);
    ASSERT_TRUE(loop.Start().ok());
    ASSERT_TRUE(SubmitPaths(loop, server.origin(), "endless", 3, answers));
    for (int i = 0; i < 200 && server.total_requests() < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(server.total_requests(), 3u);
    EXPECT_EQ(loop.in_flight(), 3u);
    loop.Stop();
    EXPECT_FALSE(loop.Submit(Get(server.origin() + "/late"), answers.For("late")));
  }
  EXPECT_EQ(answers.calls(), 0u);
}

TEST(CurlMultiLoopTest, StalledTransfersDoNotHoldBackTheOthers) {
  // /slow/* never finishes (an endless chunked body); everything else is
  // answered at once.
  TestHttpServer server("127.0.0.1", [](const TestRequest& request) {
    TestResponse response;
    if (request.target.starts_with("/slow/")) {
      response.endless_chunk_bytes = 16;
      response.endless_chunk_interval_ms = 50;
    } else {
      response.body = "body of " + request.target;
    }
    return response;
  });
  server.Start();
  const HttpOptions options = TestHttpOptions();
  CurlMultiLoop loop(options, 8);
  ASSERT_TRUE(loop.Start().ok());
  Answers stalled;
  ASSERT_TRUE(SubmitPaths(loop, server.origin(), "slow/", 4, stalled));
  Answers quick;
  ASSERT_TRUE(SubmitPaths(loop, server.origin(), "fast/", 40, quick));
  // All 40 pass through the 4 free slots while the 4 stalled ones go on.
  ASSERT_TRUE(quick.WaitFor(40));
  EXPECT_EQ(quick.Of(server.origin() + "/fast/39").body, "body of /fast/39");
  EXPECT_EQ(stalled.calls(), 0u);
  EXPECT_EQ(loop.in_flight(), 4u);
}

TEST(CurlMultiLoopTest, RefusedConnectionIsAnsweredAsANetworkError) {
  const HttpOptions options = TestHttpOptions();
  CurlMultiLoop loop(options, 4);
  ASSERT_TRUE(loop.Start().ok());
  Answers answers;
  // Port 9 (discard) on loopback: nothing listens in the test environment.
  const std::string url = "http://127.0.0.1:9/";
  ASSERT_TRUE(loop.Submit(Get(url), answers.For(url)));
  ASSERT_TRUE(answers.WaitFor(1));
  EXPECT_EQ(answers.Of(url).status, v1::FETCH_STATUS_NETWORK_ERROR);
  EXPECT_FALSE(answers.Of(url).error.empty());
}

TEST(CurlMultiLoopTest, SubmitBeforeStartIsRefused) {
  const HttpOptions options = TestHttpOptions();
  CurlMultiLoop loop(options, 4);
  Answers answers;
  EXPECT_FALSE(loop.Submit(Get("http://127.0.0.1:9/"), answers.For("x")));
}

}  // namespace
}  // namespace zcrawl::fetcher

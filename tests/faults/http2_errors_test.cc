// Servers that answer HTTP/2 with protocol errors (issue 21, point 5): one
// TLS server per fault (tests/support/broken_h2_server.h) negotiates h2 and
// then sends GOAWAY(PROTOCOL_ERROR), RST_STREAM(PROTOCOL_ERROR), a header
// block HPACK cannot decode, a frame over the negotiated size, or DATA
// before any HEADERS. Each such origin must end in a counted failure with
// its cause (http2_error, or empty_reply where libcurl says so; its
// robots.txt, the first request, fails so and is asked again once before
// its URLs fail), no attempt may hang until the timeout, the good site
// beside them must be crawled, and the fetcher must stay up with little
// memory.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/faults/fault_support.h"
#include "tests/support/frontier_state.h"
#include "tests/support/broken_h2_server.h"
#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr H2Fault kFaults[] = {H2Fault::kGoawayProtocolError, H2Fault::kResetStream, H2Fault::kBadHeaderBlock,
                               H2Fault::kOversizedFrame, H2Fault::kDataBeforeHeaders};

TEST(Http2ErrorsTest, EveryProtocolErrorEndsInACountedHttp2Failure) {
  const std::string dir = MakeTempDir("http2-errors");
  std::vector<std::unique_ptr<BrokenH2Server>> broken;
  for (H2Fault fault : kFaults) broken.push_back(std::make_unique<BrokenH2Server>("127.0.0.1", fault));
  TestHttpServer good("127.0.0.1", [](const TestRequest& request) {
    TestResponse r;
    if (request.target != "/") r.status = 404;
    r.body = "<html><body>fine</body></html>";
    return r;
  });
  good.Start();

  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string summary_path = dir + "/summary.json";
  std::vector<std::string> frontier_argv = {BinDir() + "/zcrawl-frontier", "--bind", frontier_ep, "--delay-ms",
                                            "0", "--retries", "1", "--retry-base-ms", "100", "--heartbeat-ms",
                                            "200", "--summary-file", summary_path, "--state", dir + "/state",
                                            "--log-level", "debug", good.origin() + "/"};
  for (const auto& server : broken) frontier_argv.push_back(server->origin() + "/page.html");
  TestProcess frontier, writer, fetcher;
  frontier.Start(frontier_argv, dir + "/frontier.log");
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", writer_ep, "--frontier", frontier_ep, "--out",
                dir + "/out", "--heartbeat-ms", "200"},
               dir + "/writer.log");
  // The servers' certificates are self-signed: trust is not what is tried.
  fetcher.Start({BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep, "--writer", writer_ep, "--threads",
                 "8", "--insecure-tls", "--timeout-ms", "10000", "--heartbeat-ms", "200"},
                dir + "/fetcher.log");
  uint64_t fetcher_peak_kb = 0;
  std::optional<int> code;
  const int64_t started = SteadyNowMs();
  const int64_t deadline = started + 60000;
  while (!(code = frontier.Wait(50)) && SteadyNowMs() < deadline) {
    fetcher_peak_kb = std::max(fetcher_peak_kb, UsageOf(fetcher.pid()).peak_rss_kb);
  }
  const std::string frontier_log = ReadFile(dir + "/frontier.log");
  const std::string fetcher_log = ReadFile(dir + "/fetcher.log");
  ASSERT_TRUE(code.has_value()) << "crawl did not finish\n" << frontier_log << fetcher_log;
  EXPECT_EQ(*code, 0) << frontier_log;
  // No attempt waited for the 10 s timeout: each error ended its request.
  EXPECT_LT(SteadyNowMs() - started, 8000) << frontier_log;
  EXPECT_EQ(fetcher.Wait(15000).value_or(-1), 0) << fetcher_log;
  EXPECT_EQ(writer.Wait(15000).value_or(-1), 0) << ReadFile(dir + "/writer.log");

  const auto summary = nlohmann::json::parse(ReadFile(summary_path), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(summary.is_discarded()) << frontier_log;
  EXPECT_EQ(summary["done"].get<uint64_t>(), 1u);
  EXPECT_EQ(summary["failed"].get<uint64_t>(), std::size(kFaults)) << summary.dump(2);
  EXPECT_EQ(ReadIndex(dir + "/out").size(), 1u);
  uint64_t counted = 0;
  for (const auto& [reason, n] : summary["failure_reasons"].items()) {
    EXPECT_TRUE(reason.starts_with("robots_unavailable: ")) << reason;
    counted += n.get<uint64_t>();
  }
  EXPECT_EQ(counted, std::size(kFaults)) << summary.dump(2);
  const std::map<std::string, std::string> failed = FailedUrls(dir + "/state");
  for (size_t i = 0; i < broken.size(); ++i) {
    const auto& server = broken[i];
    SCOPED_TRACE(server->origin() + " " + H2FaultName(kFaults[i]));
    // HTTP/2 was really spoken and the fault really sent, on both attempts.
    EXPECT_GE(server->h2_connections(), 1u);
    EXPECT_GE(server->faults_sent(), 2u);
    const auto reason = failed.find(server->origin() + "/page.html");
    ASSERT_NE(reason, failed.end());
    const std::string prefix = "robots_unavailable: ";
    ASSERT_TRUE(reason->second.starts_with(prefix)) << reason->second;
    const std::string cause = reason->second.substr(prefix.size());
    // GOAWAY and RST_STREAM are HTTP/2 errors in libcurl's own words. The
    // others make nghttp2 end the session before any response header,
    // which libcurl before 8 reports as an empty reply.
    const bool reset = kFaults[i] == H2Fault::kGoawayProtocolError || kFaults[i] == H2Fault::kResetStream;
    if (reset) {
      EXPECT_EQ(cause, "http2_error");
    } else {
      EXPECT_TRUE(cause == "http2_error" || cause == "empty_reply") << cause;
    }
  }
  // No fault crashed a worker: the frontier counted no attempt so.
  EXPECT_FALSE(summary["failure_reasons"].contains("worker_failed")) << summary.dump(2);
  ASSERT_TRUE(summary.contains("retry_reasons")) << summary.dump(2);
  EXPECT_FALSE(summary["retry_reasons"].contains("worker_failed")) << summary.dump(2);
  EXPECT_GT(fetcher_peak_kb, 0u);
  EXPECT_LT(fetcher_peak_kb, 128u * 1024) << "fetcher peak RSS in KB";
  RecordProperty("fetcher_peak_rss_kb", std::to_string(fetcher_peak_kb));
  good.Stop();
}

}  // namespace
}  // namespace zcrawl::testing

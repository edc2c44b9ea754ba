// The Prometheus endpoint of the frontier and the writer, read over HTTP.
#include <gtest/gtest.h>

#include "tests/support/metrics_scrape.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

TEST(MetricsTest, FrontierAndWriterServePrometheusText) {
  const std::string dir = MakeTempDir("metrics");
  const uint16_t frontier_metrics = FreeLoopbackPort();
  const uint16_t writer_metrics = FreeLoopbackPort();
  TestProcess frontier, writer;
  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", frontier_ep, "--stay", "--metrics-port",
                  std::to_string(frontier_metrics), "http://127.0.0.1:9/"},
                 dir + "/frontier.log");
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort()),
                "--out", dir + "/out", "--metrics-port", std::to_string(writer_metrics)},
               dir + "/writer.log");
  const std::string f = ScrapeMetricsUntil(frontier_metrics, "zcrawl_frontier_urls_waiting 1");
  EXPECT_NE(f.find("HTTP/1.1 200 OK"), std::string::npos) << f << ReadFile(dir + "/frontier.log");
  EXPECT_NE(f.find("# TYPE zcrawl_frontier_urls_done_total counter"), std::string::npos) << f;
  EXPECT_NE(f.find("zcrawl_frontier_urls_waiting 1"), std::string::npos) << f;
  EXPECT_GT(MetricValue(f, "zcrawl_frontier_store_cache_capacity_bytes"), 0) << f;
#ifdef ZCRAWL_PROCESSES_ON_JEMALLOC
  // jemalloc's own figures: it keeps at least what it handed out.
  const double allocated = MetricValue(f, "zcrawl_frontier_heap_allocated_bytes");
  const double resident = MetricValue(f, "zcrawl_frontier_heap_resident_bytes");
  EXPECT_GT(allocated, 100000) << f;
  EXPECT_GE(resident, allocated) << f;
  // Far below its default budget: nothing withheld, the store's cache whole.
  EXPECT_EQ(MetricValue(f, "zcrawl_frontier_heap_withheld_bytes"), 0) << f;
#else
  EXPECT_EQ(f.find("zcrawl_frontier_heap_allocated_bytes"), std::string::npos) << "no jemalloc, no figures";
#endif
  const std::string w = ScrapeMetricsUntil(writer_metrics, "zcrawl_writer_pages_stored_total 0");
  EXPECT_NE(w.find("zcrawl_writer_pages_stored_total 0"), std::string::npos) << w << ReadFile(dir + "/writer.log");
  frontier.Signal(SIGTERM);
  writer.Signal(SIGTERM);
  EXPECT_EQ(frontier.Wait(10000).value_or(-1), 0);
  EXPECT_EQ(writer.Wait(10000).value_or(-1), 0);
}

// ./run crawl --metrics-port P: the frontier's metrics on P, the writer's on
// the next port, while the crawl runs (its one page answers slowly).
TEST(MetricsTest, RunCrawlServesFrontierMetricsOnThePortAndTheWritersOnTheNext) {
  TestHttpServer server("127.0.0.1", [](const TestRequest& r) {
    TestResponse response;
    if (r.target == "/robots.txt") {
      response.status = 404;
    } else {
      response.delay_ms = 4000;
      response.body = "<html><body>slow</body></html>";
    }
    return response;
  });
  server.Start();
  uint16_t port = 0;
  for (int i = 0; i < 20 && port == 0; ++i) {
    const uint16_t p = FreeLoopbackPort();
    if (p < 65535 && LoopbackPortBindable(p + 1)) port = p;
  }
  ASSERT_NE(port, 0);
  const std::string dir = MakeTempDir("crawl-metrics");
  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", server.origin() + "/", "--out", dir + "/out",
               "--metrics-port", std::to_string(port), "--fetchers", "1"},
              dir + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  const std::string f = ScrapeMetricsUntil(port, "zcrawl_frontier_urls_");
  EXPECT_NE(f.find("zcrawl_frontier_urls_done_total"), std::string::npos) << f << ReadFile(dir + "/crawl.log");
  const std::string w = ScrapeMetricsUntil(port + 1, "zcrawl_writer_pages_stored_total");
  EXPECT_NE(w.find("zcrawl_writer_pages_stored_total"), std::string::npos) << w << ReadFile(dir + "/crawl.log");
  crawl.Signal(SIGINT);
  EXPECT_EQ(crawl.Wait(30000).value_or(-1), 130) << ReadFile(dir + "/crawl.log");
}

}  // namespace
}  // namespace zcrawl::testing

// zcrawl-frontier: parses flags, builds the Broker, runs it, exits.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/cli_config.h"
#include "common/shutdown_signal.h"
#include "frontier/broker.h"
#include "frontier/frontier_options.h"

namespace zcrawl::frontier {
namespace {

void AddFlags(CLI::App& app, FrontierOptions& o) {
  app.add_option("seeds", o.seeds, "Seed URLs (http or https)");
  app.add_option("--bind", o.bind, "Endpoint to bind for fetchers, writer and tools")
      ->capture_default_str();
  // allow_extra_args(false): one value per occurrence, so a seed after
  // "--allow X" stays a seed. Repeat the flag for more values.
  app.add_option("--allow-domain", o.allow_domains, "Also crawl this domain and its subdomains")
      ->allow_extra_args(false);
  app.add_option("--allow", o.allow_patterns,
                 "Crawl only URLs matching one of these POSIX extended regexes (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--deny", o.deny_patterns,
                 "Never crawl URLs matching this POSIX extended regex (repeatable; beats --allow)")
      ->allow_extra_args(false);
  app.add_option("--max-depth", o.max_depth, "Most link hops from a seed (-1: unlimited)")
      ->capture_default_str();
  app.add_option("--max-pages", o.max_pages, "Stop admitting URLs after this many (0: unlimited)")
      ->capture_default_str();
  app.add_option("--max-pages-per-host", o.max_pages_per_host,
                 "Stop admitting URLs of one origin after this many (0: unlimited)")
      ->capture_default_str();
  app.add_option("--max-query-variants", o.max_query_variants,
                 "Most URLs with a query string per origin+path (0: unlimited)")
      ->capture_default_str()->check(CLI::Range(0u, 65535u));
  app.add_option("--max-url-length", o.max_url_length, "Longer URLs are dropped")
      ->capture_default_str()->check(CLI::Range(16u, 1u << 20));
  app.add_option("--delay-ms", o.delay_ms, "Minimum ms between request starts on one host")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  app.add_option("--per-host", o.per_host, "Concurrent fetches per host")
      ->capture_default_str()->check(CLI::Range(1u, 1000u));
  app.add_flag("!--no-robots", o.obey_robots, "Ignore robots.txt");
  app.add_flag("--sitemaps", o.follow_sitemaps, "Crawl the sitemaps robots.txt names");
  app.add_option("--robots-agent", o.robots_agent, "Product token for robots.txt groups")
      ->capture_default_str();
  app.add_option("--lease-ms", o.lease_ms, "A leased URL not reported in time is re-queued")
      ->capture_default_str()->check(CLI::Range(int64_t{100}, int64_t{86400000}));
  app.add_option("--retries", o.retries, "Retries of a retryable failure")->capture_default_str();
  app.add_option("--retry-base-ms", o.retry_base_ms, "First retry delay; doubles each time")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  app.add_option("--max-batch", o.max_batch, "Most URLs per batch")->capture_default_str()
      ->check(CLI::Range(1u, 10000u));
  app.add_option("--heartbeat-ms", o.heartbeat_ms, "Heartbeat interval")->capture_default_str()
      ->check(CLI::Range(int64_t{10}, int64_t{600000}));
  app.add_option("--liveness", o.liveness, "Missed heartbeats before a peer is dead")
      ->capture_default_str()->check(CLI::Range(1u, 1000u));
  app.add_option("--link-threads", o.link_threads, "Threads admitting reported links")
      ->capture_default_str()->check(CLI::Range(1u, 64u));
  app.add_option("--expected-urls", o.expected_urls, "Sizes the Bloom filter")->capture_default_str();
  app.add_option("--state", o.state_dir, "Folder for durable state (empty: memory only)");
  app.add_flag("--fresh", o.fresh, "Discard saved state and start over");
  app.add_option("--commit-interval-ms", o.commit_interval_ms, "Most ms between group commits")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{60000}));
  app.add_option("--metrics-port", o.metrics_port, "Serve Prometheus metrics here (0: off)")
      ->capture_default_str();
  app.add_option("--metrics-bind", o.metrics_bind, "Address for the metrics endpoint")
      ->capture_default_str();
  app.add_option("--summary-file", o.summary_file, "Write a JSON summary here on exit");
  app.add_flag("!--stay", o.exit_when_done, "Keep running after the crawl finished");
  AddSecurityFlags(app, o.security, /*server=*/true, false, false);
  app.add_option("--log-level", o.logging.level, "trace|debug|info|warn|error|off")
      ->capture_default_str();
  app.add_flag("--log-json", o.logging.json, "Log one JSON object per line");
}

int Main(int argc, char** argv) {
  FrontierOptions options;
  CLI::App app{"zcrawl frontier: owns the URL queue, the visited set and politeness"};
  AddFlags(app, options);
  bool print_config = false;
  AddConfigFlags(app, &print_config);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ExitWithParseError(app, e, "frontier");
  }
  if (MaybePrintConfig(app, print_config)) return 0;
  if (Status s = SetupLogging("frontier", options.logging); !s.ok()) {
    fprintf(stderr, "frontier: %s\n", s.message().c_str());
    return 2;
  }
  ShutdownSignal::Install();
  zmq::context_t context(1);
  Broker broker(options, context, RealClock::Get());
  if (Status s = broker.Start(); !s.ok()) {
    spdlog::error("cannot start: {}", s.message());
    return 2;
  }
  if (Status s = broker.Run(); !s.ok()) {
    spdlog::error("frontier failed: {}", s.ToString());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace zcrawl::frontier

#ifdef ZCRAWL_JEMALLOC
// jemalloc's settings for the frontier, the process whose memory grows with
// the crawl: one arena (its hot path is one thread) and freed pages handed
// back at once. Measured: ~290 instead of ~350 bytes of RSS per known URL,
// CPU unchanged within noise (bench/RESULTS.md). MALLOC_CONF still wins.
extern "C" {
const char* malloc_conf = "narenas:1,dirty_decay_ms:0,muzzy_decay_ms:0";
}
#endif

int main(int argc, char** argv) {
  try {
    return zcrawl::frontier::Main(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "frontier: fatal: %s\n", e.what());
    return 1;
  }
}

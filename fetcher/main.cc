// zcrawl-fetcher: parses flags, builds the FetcherNode, runs it, exits.
#include <curl/curl.h>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/cli_config.h"
#include "common/shutdown_signal.h"
#include "fetcher/fetcher_node.h"
#include "fetcher/fetcher_options.h"

namespace zcrawl::fetcher {
namespace {

void AddFlags(CLI::App& app, FetcherOptions& o) {
  app.add_option("--frontier", o.frontier, "Frontier endpoint")->capture_default_str();
  app.add_option("--writer", o.writer, "Writer endpoint")->capture_default_str();
  app.add_option("--io", o.io, "multi: one event loop fetches, workers parse; blocking: a worker per fetch")
      ->capture_default_str()->check(CLI::IsMember({"multi", "blocking"}));
  app.add_option("--threads", o.threads, "URLs fetched at once (blocking: worker threads)")
      ->capture_default_str()->check(CLI::Range(1u, 4096u));
  app.add_option("--parse-threads", o.parse_threads, "Parse workers with --io multi (0: one per core)")
      ->capture_default_str()->check(CLI::Range(0u, 1024u));
  app.add_option("--prefetch", o.prefetch, "URLs requested beyond free capacity")
      ->capture_default_str()->check(CLI::Range(0u, 4096u));
  app.add_option("--keep-alive-ms", o.keep_alive_ms, "Idle workers exit after this (<0: never)")
      ->capture_default_str();
  app.add_option("--watchdog-ms", o.watchdog_ms, "Abandon a worker task running longer (0: off)")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{86400000}));
  app.add_option("--parser", o.parser, "HTML parser: gumbo or myhtml")->capture_default_str()
      ->check(CLI::IsMember({"gumbo", "myhtml"}));
  app.add_flag("--ignore-nofollow", o.ignore_nofollow, "Follow nofollow links too");
  app.add_flag("!--no-text", o.extract_text, "Do not extract visible text (no output needs it)");
  app.add_flag("!--no-page-links", o.page_links,
               "Do not send links to the writer (only jsonl, WARC and exec outputs list them)");
  app.add_flag("!--no-request-headers", o.http.capture_request_headers,
               "Do not record requests as sent (only WARC request records need them)");
  app.add_flag("!--skip-non-html", o.store_non_html, "Do not store non-HTML responses");
  app.add_option("--user-agent", o.http.user_agent, "User-Agent header")->capture_default_str();
  app.add_option("--connect-timeout-ms", o.http.connect_timeout_ms, "TCP+TLS connect timeout")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{600000}));
  app.add_option("--timeout-ms", o.http.total_timeout_ms, "Whole-transfer timeout")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{3600000}));
  app.add_option("--low-speed-bytes", o.http.low_speed_bytes, "Low-speed limit (bytes/s)")
      ->capture_default_str();
  app.add_option("--low-speed-ms", o.http.low_speed_ms, "... for this long aborts")
      ->capture_default_str()->check(CLI::Range(int64_t{1000}, int64_t{3600000}));
  app.add_option("--max-body-bytes", o.http.max_body_bytes, "Largest decoded body")
      ->capture_default_str()->check(CLI::Range(uint64_t{1024}, uint64_t{1} << 31));
  app.add_option("--max-redirects", o.http.max_redirects, "Same-origin redirects followed")
      ->capture_default_str()->check(CLI::Range(0u, 20u));
  app.add_flag("!--insecure-tls", o.http.verify_tls, "Do not verify TLS certificates");
  app.add_option("--heartbeat-ms", o.heartbeat_ms, "Heartbeat interval")->capture_default_str()
      ->check(CLI::Range(int64_t{10}, int64_t{600000}));
  app.add_option("--liveness", o.liveness, "Missed heartbeats before a peer is dead")
      ->capture_default_str()->check(CLI::Range(1u, 1000u));
  app.add_flag("!--stay", o.exit_on_shutdown, "Keep running after the crawl finished");
  AddSecurityFlags(app, o.security, /*server=*/false, /*frontier_client=*/true, /*writer_client=*/true);
  app.add_option("--log-level", o.logging.level, "trace|debug|info|warn|error|off")
      ->capture_default_str();
  app.add_flag("--log-json", o.logging.json, "Log one JSON object per line");
}

int Main(int argc, char** argv) {
  FetcherOptions options;
  CLI::App app{"zcrawl fetcher: fetches leased URLs, parses HTML, stores pages via the writer"};
  AddFlags(app, options);
  bool print_config = false;
  AddConfigFlags(app, &print_config);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ExitWithParseError(app, e, "fetcher");
  }
  if (MaybePrintConfig(app, print_config)) return 0;
  if (Status s = SetupLogging("fetcher", options.logging); !s.ok()) {
    fprintf(stderr, "fetcher: %s\n", s.message().c_str());
    return 2;
  }
  ShutdownSignal::Install();
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int code = 0;
  {
    zmq::context_t context(1);
    FetcherNode node(options, context, RealClock::Get());
    if (Status s = node.Start(); !s.ok()) {
      spdlog::error("cannot start: {}", s.message());
      code = 2;
    } else if (Status r = node.Run(); !r.ok()) {
      spdlog::error("fetcher failed: {}", r.ToString());
      code = 1;
    }
  }
  curl_global_cleanup();
  return code;
}

}  // namespace
}  // namespace zcrawl::fetcher

int main(int argc, char** argv) {
  try {
    return zcrawl::fetcher::Main(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "fetcher: fatal: %s\n", e.what());
    return 1;
  }
}

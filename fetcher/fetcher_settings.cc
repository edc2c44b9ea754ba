#include "fetcher/fetcher_settings.h"

namespace zcrawl::fetcher {

void DeclareFetcherSettings(SettingsDeclarer& d, FetcherOptions& o) {
  d.Option("--frontier", o.frontier, "Frontier endpoint")->capture_default_str();
  d.Option("--writer", o.writer, "Writer endpoint")->capture_default_str();
  d.Choice("--io", o.io, {{"multi", FetchIo::kMulti}, {"blocking", FetchIo::kBlocking}},
           "multi: one event loop fetches, workers parse; blocking: a worker per fetch");
  d.Option("--threads", o.threads, "URLs fetched at once (blocking: worker threads)")
      ->capture_default_str()->check(CLI::Range(1u, kMaxThreads));
  d.Option("--parse-threads", o.parse_threads, "Parse workers with --io multi (0: one per core)")
      ->capture_default_str()->check(CLI::Range(0u, 1024u));
  d.Option("--prefetch", o.prefetch, "URLs requested beyond free capacity")
      ->capture_default_str()->check(CLI::Range(0u, 4096u));
  d.Option("--turn-gap-ms", o.turn_gap_ms,
           "While all fetch slots are busy, take a main-loop turn at most this often, so finished pages "
           "travel together (0: a turn per event)")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{1000}));
  d.Option("--keep-alive-ms", o.keep_alive_ms, "Idle workers exit after this (<0: never)")
      ->capture_default_str();
  d.Option("--watchdog-ms", o.watchdog_ms, "Abandon a worker task running longer (0: off)")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{86400000}));
  d.Option("--parser", o.parser, "HTML parser: scan (no tree where none is needed, else myhtml), myhtml or gumbo")->capture_default_str()
      ->check(CLI::IsMember({"scan", "gumbo", "myhtml"}));
  d.Flag("--ignore-nofollow", o.ignore_nofollow, "Follow nofollow links too");
  d.Flag("!--no-text", o.extract_text, "Do not extract visible text (no output needs it)");
  d.Flag("!--no-page-links", o.page_links,
               "Do not send links to the writer (only jsonl, WARC and exec outputs list them)");
  d.Flag("!--no-request-headers", o.http.capture_request_headers,
               "Do not record requests as sent (only WARC request records need them)");
  d.Flag("!--skip-non-html", o.store_non_html, "Do not store non-HTML responses");
  d.Flag("--page-requisites", o.page_requisites,
         "Report what pages embed (styles, scripts, images, media, fonts) for the frontier to fetch "
         "(./run crawl: on for WARC and WACZ)");
  d.Flag("!--no-page-requisites", o.page_requisites, "Do not report page requisites");
  d.Option("--user-agent", o.http.user_agent, "User-Agent header")->capture_default_str();
  d.Option("--connect-timeout-ms", o.http.connect_timeout_ms, "TCP+TLS connect timeout")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{600000}));
  d.Option("--timeout-ms", o.http.total_timeout_ms, "Whole-transfer timeout")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{3600000}));
  d.Option("--low-speed-bytes", o.http.low_speed_bytes, "Low-speed limit (bytes/s)")
      ->capture_default_str();
  d.Option("--low-speed-ms", o.http.low_speed_ms, "... for this long aborts")
      ->capture_default_str()->check(CLI::Range(int64_t{1000}, int64_t{3600000}));
  d.Option("--max-body-bytes", o.http.max_body_bytes, "Largest decoded body")
      ->capture_default_str()->check(CLI::Range(uint64_t{1024}, uint64_t{1} << 31));
  d.Option("--max-redirects", o.http.max_redirects, "Redirects from a linked URL to its page, across origins too")
      ->capture_default_str()->check(CLI::Range(0u, 20u));
  d.Option("--keep-connections", o.http.keep_connections,
           "Idle connections kept for reuse across origins (at least twice --threads)")
      ->capture_default_str()->check(CLI::Range(0u, kMaxKeptConnections));
  d.Flag("!--insecure-tls", o.http.verify_tls, "Do not verify TLS certificates");
  d.Option("--resolve", o.http.resolve,
           "Connect HOST:PORT to ADDRESS, as curl's --resolve (HOST:PORT:ADDRESS[,ADDRESS]; repeatable)")
      ->allow_extra_args(false)
      ->check([](const std::string& entry) -> std::string {
        const size_t first = entry.find(':');
        const size_t second = first == std::string::npos ? first : entry.find(':', first + 1);
        if (first == 0 || second == std::string::npos || second == first + 1 ||
            second + 1 >= entry.size()) {
          return "expected HOST:PORT:ADDRESS, got \"" + entry + "\"";
        }
        for (size_t i = first + 1; i < second; ++i) {
          if (entry[i] < '0' || entry[i] > '9') return "the port of \"" + entry + "\" is not a number";
        }
        return "";
      });
  d.Option("--ca-file", o.http.ca_file, "PEM file of CA certificates to trust instead of the system's")
      ->check(CLI::ExistingFile);
  AddLivenessFlags(d, o.link, /*reconnects=*/true);
  d.Flag("!--stay", o.exit_on_shutdown, "Keep running after the crawl finished");
  AddSecurityFlags(d, o.security, /*server=*/false, /*frontier_client=*/true, /*writer_client=*/true);
  d.Option("--log-level", o.logging.level, "trace|debug|info|warn|error|off")
      ->capture_default_str();
  d.Flag("--log-json", o.logging.json, "Log one JSON object per line");
}

}  // namespace zcrawl::fetcher

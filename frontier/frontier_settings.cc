#include "frontier/frontier_settings.h"

#include "common/free_space_flag.h"

namespace zcrawl::frontier {

void DeclareUrlKeySettings(SettingsDeclarer& d, UrlKeyRules& rules) {
  d.Flag("--sort-query-params", rules.sort_query_params,
         "Count URLs that differ only in the order of their query parameters as one (a new crawl's setting)");
  d.Option("--drop-query-params", rules.drop_query_params,
           "Count URLs that differ only in query parameters of this name as one: '*' matches any run of "
           "characters, case ignored, e.g. 'utm_*' (repeatable; a new crawl's setting)")
      ->allow_extra_args(false);
}

void DeclareFrontierSettings(SettingsDeclarer& d, FrontierOptions& o) {
  // Positional seeds are "urls" in a TOML config; "seeds" is the file.
  d.Option("urls", o.seeds, "Seed URLs (http or https)");
  d.Option("--recrawl-list", o.recrawl_list,
           "JSON lines of an earlier crawl's captures to fetch again conditionally (./run crawl --recrawl writes it)")
      ->check(CLI::ExistingFile);
  d.Flag("--continuous", o.continuous,
         "Keep crawling: fetch every page again, conditionally, at an interval adapted to how often it changes");
  // Durations: a number of seconds, or with a unit (s, m, h, d).
  const CLI::AsNumberWithUnit duration(std::map<std::string, int64_t>{{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}},
                                       CLI::AsNumberWithUnit::CASE_SENSITIVE, "DURATION");
  d.Option("--refetch-min", o.refetch_min_s,
           "Continuous crawl: shortest interval between fetches of a URL (seconds, or 90s, 15m, 1h, 30d)")
      ->capture_default_str()->transform(duration)->check(CLI::Range(int64_t{1}, int64_t{10} * 365 * 86400))
      ->type_name("DURATION");
  d.Option("--refetch-max", o.refetch_max_s, "Continuous crawl: longest interval between fetches of a URL")
      ->capture_default_str()->transform(duration)->check(CLI::Range(int64_t{1}, int64_t{10} * 365 * 86400))
      ->type_name("DURATION");
  d.Option("--seeds", o.seeds_file,
           "File of seed URLs, one a line, # comments, - for stdin (bad lines are reported and skipped)");
  d.Option("--bind", o.bind, "Endpoint to bind for fetchers, writer and tools (several: comma-separated)")
      ->capture_default_str();
  // allow_extra_args(false): one value per occurrence, so a seed after
  // "--allow X" stays a seed. Repeat the flag for more values.
  d.Choice("--scope", o.scope, {{"seeds", CrawlScope::kSeeds}, {"web", CrawlScope::kWeb}},
           "seeds: the seeds' hosts and --allow-domain; web: any http(s) host links reach");
  d.Option("--allow-domain", o.scope_rules.allow_domains, "Also crawl this domain and its subdomains")
      ->allow_extra_args(false);
  d.Option("--allow", o.scope_rules.allow_patterns,
                 "Crawl only URLs matching one of these POSIX extended regexes (repeatable)")
      ->allow_extra_args(false);
  d.Option("--deny", o.scope_rules.deny_patterns,
                 "Never crawl URLs matching this POSIX extended regex (repeatable; beats --allow)")
      ->allow_extra_args(false);
  d.Flag("--allow-private-addresses", o.allow_private_addresses,
         "Let fetchers connect to loopback, private and link-local addresses (cloud metadata "
         "included); by default only those of the seeds are reached");
  d.Option("--allow-network", o.allow_networks,
           "Also reach this non-public CIDR block, e.g. 10.1.0.0/16 (repeatable)")
      ->allow_extra_args(false);
  d.Option("--max-depth", o.scope_rules.max_depth, "Most link hops from a seed (-1: unlimited)")
      ->capture_default_str();
  d.Option("--embed-hops", o.scope_rules.max_embed_hops,
           "Page requisites (styles, images, fonts, ...) may lead this many embeds outside the scope")
      ->capture_default_str()->check(CLI::Range(0u, 3u));
  d.Option("--max-pages", o.limits.max_pages, "Stop admitting URLs after this many (0: unlimited)")
      ->capture_default_str();
  d.Option("--max-pages-per-host", o.limits.max_pages_per_host,
                 "Stop admitting URLs of one origin after this many (0: unlimited)")
      ->capture_default_str();
  d.Option("--max-pages-per-domain", o.limits.max_pages_per_domain,
           "Stop admitting URLs of one registrable domain, subdomains included, after this many "
           "(0: unlimited)")
      ->capture_default_str();
  d.Option("--max-query-variants", o.limits.max_query_variants,
                 "Most URLs with a query string per origin+path (0: unlimited)")
      ->capture_default_str()->check(CLI::Range(0u, 65535u));
  d.Option("--max-url-length", o.scope_rules.max_url_length, "Longer URLs are dropped")
      ->capture_default_str()->check(CLI::Range(16u, 1u << 20));
  d.Option("--max-path-repeat", o.scope_rules.max_path_repeat,
           "URLs whose path holds one segment more than this many times are dropped (0: no limit)")
      ->capture_default_str()->check(CLI::Range(0u, 1000u));
  d.Option("--max-query-params", o.scope_rules.max_query_params,
           "URLs with more query parameters than this are dropped (0: no limit)")
      ->capture_default_str()->check(CLI::Range(0u, 100000u));
  DeclareUrlKeySettings(d, o.url_key);
  d.Option("--delay-ms", o.politeness.delay_ms, "Minimum ms between request starts on one host")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  d.Option("--per-host", o.politeness.per_host, "Concurrent fetches per host")
      ->capture_default_str()->check(CLI::Range(1u, 1000u));
  d.Option("--backoff-max-ms", o.politeness.backoff_max_ms,
           "Longest gap between requests to an origin that pushes back (429, 503, refusals; 0: no back-off)")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{86400000}));
  d.Option("--rate-limited-max-ms", o.politeness.rate_limited_max_ms,
           "An origin answering only 429/503 this long fails its URLs rate_limited (0: never)")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{7} * 86400000));
  d.Option("--delay-factor", o.politeness.delay_factor,
           "Gap between request starts >= this x the last response time / per-host (0: off)")
      ->capture_default_str()->check(CLI::Range(0.0, 100.0));
  d.Option("--max-delay-ms", o.politeness.max_delay_ms, "Longest gap --delay-factor gives")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  d.Option("--per-ip", o.politeness.per_ip, "Concurrent fetches per server address, all its hosts (0: no limit)")
      ->capture_default_str()->check(CLI::Range(0u, 100000u));
  d.Option("--ip-delay-ms", o.politeness.ip_delay_ms, "Minimum ms between request starts on one server address")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  d.Flag("!--no-robots", o.politeness.obey_robots, "Ignore robots.txt");
  d.Flag("--sitemaps", o.follow_sitemaps, "Crawl the sitemaps robots.txt names");
  d.Option("--robots-agent", o.politeness.robots_agent, "Product token for robots.txt groups")
      ->capture_default_str();
  d.Option("--lease-ms", o.leases.lease_ms, "A leased URL not reported in time is re-queued")
      ->capture_default_str()->check(CLI::Range(int64_t{100}, int64_t{86400000}));
  d.Option("--retries", o.leases.retries, "Retries of a retryable failure")->capture_default_str();
  d.Option("--retry-base-ms", o.leases.retry_base_ms, "First retry delay; doubles each time")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  d.Option("--max-batch", o.max_batch, "Most URLs per batch")->capture_default_str()
      ->check(CLI::Range(1u, 10000u));
  AddLivenessFlags(d, o.link, /*reconnects=*/false);
  d.Option("--link-threads", o.link_threads, "Threads admitting reported links")
      ->capture_default_str()->check(CLI::Range(1u, 64u));
  d.Option("--memory-mb", o.memory_mb,
           "RAM for the frontier's URL structures, whatever the crawl's size (min 16)")
      ->capture_default_str()->check(CLI::Range(uint64_t{16}, uint64_t{1} << 24));
  d.Option("--state", o.state_dir, "Folder for durable state (empty: memory only)");
  d.Flag("--fresh", o.fresh, "Discard saved state and start over");
  d.Option("--commit-interval-ms", o.commit_interval_ms, "Most ms between group commits")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{60000}));
  AddMinFreeSpaceFlag(d, o.min_free_mb);
  d.Option("--metrics-port", o.metrics_port, "Serve Prometheus metrics here (0: off)")
      ->capture_default_str();
  d.Option("--metrics-bind", o.metrics_bind, "Address for the metrics endpoint")
      ->capture_default_str();
  d.Option("--console-port", o.console_port, "Serve the web console here (0: off)")->capture_default_str();
  d.Option("--console-bind", o.console_bind,
           "Address for the web console (beyond loopback it asks for the token in STATE/console.token)")
      ->capture_default_str();
  d.Option("--shutdown-grace-ms", o.shutdown_grace_ms,
           "After the crawl ends, how long to wait for peers to say goodbye")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{600000}));
  d.Option("--summary-file", o.summary_file, "Write a JSON summary here on exit");
  d.Flag("!--stay", o.exit_when_done, "Keep running after the crawl finished");
  AddSecurityFlags(d, o.security, /*server=*/true, false, false);
  d.Option("--log-level", o.logging.level, "trace|debug|info|warn|error|off")
      ->capture_default_str();
  d.Flag("--log-json", o.logging.json, "Log one JSON object per line");
}

}  // namespace zcrawl::frontier

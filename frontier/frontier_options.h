// FrontierOptions: every setting of the frontier process, with its default
// and the trade-off it controls. Loaded once in main (flags), validated, then
// passed by const reference. docs/CONFIG.md lists the same keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/free_space.h"
#include "common/logging.h"
#include "net/liveness_options.h"
#include "net/security_options.h"

namespace zcrawl::frontier {

// --scope's values (frontier_settings.cc names them).
enum class CrawlScope { kSeeds, kWeb };

// Which URLs the crawl admits, besides the host scope (ScopePolicy).
struct ScopeRules {
  // Extra registrable domains allowed besides the seeds' hosts (D and *.D).
  std::vector<std::string> allow_domains;
  // Links deeper than this many hops from a seed are not followed (-1: no limit).
  int32_t max_depth = -1;
  // Page requisites (v1::Link.embed) outside the scope: how many embeds in
  // a row may lead out of it (0: none outside the scope). 2, because a
  // stylesheet on another host (a CDN) is one embed away from the page and
  // the fonts and images it references are two, and a replay needs them
  // all; only stylesheets embed further (the fetcher reports nothing else
  // of a requisite outside the scope), so 2 reaches no further than that.
  // Heritrix bounds the same chains with its transclusion hops.
  uint32_t max_embed_hops = 2;
  // Longer URLs are dropped as traps or garbage.
  uint32_t max_url_length = 2048;
  // URLs whose path holds one segment more than this many times are
  // dropped (0: no limit): /a/b/a/b/a/b/a/b/ is a loop of relative links.
  // StormCrawler refuses a third copy (maxPathRepetition 3); 3 copies are
  // allowed here because a date path (/2011/11/11/) has them, while four
  // copies of a segment in a hand-made path are unheard of.
  uint32_t max_path_repeat = 3;
  // URLs with more query parameters than this are dropped (0: no limit):
  // links that each add a parameter (facets, filters, tracking) never end;
  // hand-written links and GET forms stay far below 32, and the query
  // variants per path (AdmissionLimitsOptions) bound the rest.
  uint32_t max_query_params = 32;
  // URL patterns, POSIX extended regexes searched in the normalised URL
  // (case-sensitive; anchor with ^ $). With any allow pattern a URL must
  // match one; a deny match always drops it. They only narrow the host
  // scope; each list costs one regexec per link (~0.5 us for a few patterns).
  std::vector<std::string> allow_patterns;
  std::vector<std::string> deny_patterns;
};

// How the seen set keys a URL beyond removing session ids, which it always
// does (UrlCanonicalizer, frontier/store/url_canonicalizer.h). Both rules
// are off by default: each merges URLs a site may serve differently. A
// state folder keeps the rules it was created with (a resume with other
// rules warns and keeps the stored ones; --fresh to change them).
struct UrlKeyRules {
  // Key a URL with its query parameters sorted by name (stable, so repeated
  // names keep their order): ?b=1&a=2 and ?a=2&b=1 become one URL.
  bool sort_query_params = false;
  // Query parameters left out of the key, by name: each pattern matches a
  // whole name, '*' any run of characters, ASCII case ignored ("utm_*",
  // "fbclid"). Empty: none.
  std::vector<std::string> drop_query_params;
};

// How many URLs the crawl admits (AdmissionLimits).
struct AdmissionLimitsOptions {
  // Stop admitting new URLs once this many are known (0: no limit).
  uint64_t max_pages = 0;
  // Stop admitting URLs of one origin after this many (0: no limit): keeps
  // one huge site from eating the whole budget, but truncates that site.
  uint64_t max_pages_per_host = 0;
  // Stop admitting URLs of one registrable domain (example.co.uk with all
  // its subdomains; public suffixes from libpsl) after this many (0: no
  // limit): what keeps one site with endless subdomains from filling a
  // --scope web crawl.
  uint64_t max_pages_per_domain = 0;
  // Most URLs with a query string per origin + path (0: no limit, at most
  // 65535): bounds calendar and session-id traps to this many URLs per path,
  // but also truncates legitimate listings like /topic?id=N past it.
  uint32_t max_query_variants = 1000;
};

// How hard the crawl may press on one origin; the scheduler takes this
// struct as it is (SchedulerOptions), so each setting is defined here once.
struct PolitenessOptions {
  // Minimum ms between two request starts on one host; higher is politer
  // and slower. robots.txt Crawl-delay can raise it per host.
  int64_t delay_ms = 250;
  // Concurrent fetches per host.
  uint32_t per_host = 2;
  // Fetch and obey robots.txt before any other URL of a host.
  bool obey_robots = true;
  // Product token matched against robots.txt User-agent lines.
  std::string robots_agent = "zcrawl";
  // An origin that pushes back (429, 503, refused connections:
  // origin_backoff.h) gets a gap between requests that doubles up to this:
  // 10 minutes, so a site that is down for hours is asked six times an
  // hour, not thousands, and one that recovers is noticed within minutes.
  // 0: no back-off (a crawl of one's own servers, or a test of something
  // else).
  int64_t backoff_max_ms = 10 * 60 * 1000;
  // An origin that answers 429 or 503 to every request for this long (no
  // healthy answer between) fails its URLs `rate_limited`: an hour, so a
  // limit counted per hour (a common quota) has passed once, and a crawl
  // is not held open for days by a site that never lets it in. Until then
  // such answers use no retries (origin_backoff.h). 0: never give up.
  int64_t rate_limited_max_ms = 60 * 60 * 1000;
  // The gap between request starts on an origin is at least this times
  // its latest response time, divided by its concurrency (Heritrix's
  // delayFactor, which has one connection per queue, per connection
  // here): a server that slows down is asked less often, in proportion.
  // 2: each connection waits as long as the server took, so we hold at
  // most half of it; with the default 2 per host, an origin answering
  // within 250 ms keeps the --delay-ms pace and one answering in 2 s gets
  // a request every 2 s instead of 8 a second. Heritrix uses 5 with a 3 s
  // floor for archives that crawl for months. 0: off.
  double delay_factor = 2.0;
  // The longest gap the factor gives (Heritrix's maxDelay is 30 s too): a
  // server that takes minutes to answer is still crawled.
  int64_t max_delay_ms = 30 * 1000;
  // Origins on one server address share a budget (address_budgets.h):
  // this many requests in flight at that address, and this long between
  // request starts there. 16 and 0: eight origins' worth of the default
  // --per-host 2, so a crawl of distinct sites on distinct servers runs
  // as before, while a thousand subdomains of one platform get 16 at once,
  // not 2,000. A crawl of many sites behind one CDN address may raise it.
  // --per-ip 0: no per-address budget.
  uint32_t per_ip = 16;
  int64_t ip_delay_ms = 0;
};

// How long a fetcher holds a URL, and how often a failed one is tried.
struct LeaseOptions {
  // A URL handed out and not reported within this time goes back to the
  // queue. Must exceed the fetchers' total timeout plus writer latency.
  int64_t lease_ms = 120000;
  // Retries of a retryable failure (network, timeout, 5xx, 429) before the
  // URL is failed for good.
  uint32_t retries = 3;
  // First retry waits this long; each further one doubles it (capped at 5 min).
  int64_t retry_base_ms = 1000;
};

struct FrontierOptions {
  // Where fetchers, the writer and status tools connect (ROUTER).
  std::string bind = "tcp://127.0.0.1:5570";
  std::vector<std::string> seeds;
  // A seed list file (common/seed_list.h), read at start beside `seeds`.
  std::string seeds_file;
  // Its bad lines, skipped when it was read (AddSeedFile); for the summary.
  uint64_t seeds_skipped = 0;
  // A recrawl's list (JSON lines: url, depth, and what revalidates it:
  // etag, last_modified, fetched_at_ms, payload_digest), written by
  // `./run crawl --recrawl` from an earlier crawl's indexes. Each URL is
  // admitted as the earlier crawl had it (at its depth, past the depth
  // limit and the host scope as a requisite would be) and leased with its
  // validators, so the fetcher asks conditionally. Read once per state.
  std::string recrawl_list;

  // --- Continuous crawl (frontier/scheduler/refetch_policy.h) ---
  // Keep crawling: every page done is fetched again later, conditionally,
  // at an interval that adapts to how often it changes, within
  // [refetch_min_s, refetch_max_s]; the crawl never ends by itself (stop
  // it with a signal or `./run stop`). The schedule lives in the state, so
  // a restart keeps it. A URL whose fetch fails (gone, refused, unreachable
  // after the retries) is recorded failed with its reason, as in any crawl,
  // and looked at again after refetch_max_s.
  bool continuous = false;
  // 1 hour: the most often one page of a site is asked again, however
  // often it changes (a news front page; politeness still spaces each
  // request). 30 days: the least often, however long it stayed the same;
  // Nutch's default interval, so an unchanged page is still looked at
  // monthly. With x1.4 per unchanged fetch, 1 h grows to 30 days in 20.
  int64_t refetch_min_s = 3600;
  int64_t refetch_max_s = 30 * 86400;

  // --- Scope ---
  // kSeeds ("seeds"): the seeds' hosts plus allow_domains. kWeb ("web"):
  // any http(s) host reached by links (a broad crawl), still under deny
  // patterns, max_depth, the budgets below and robots.txt; give it
  // max_pages_per_domain.
  CrawlScope scope = CrawlScope::kSeeds;
  // Non-public addresses (loopback, private networks, link-local with the
  // cloud metadata service, ...: common/ip_network.h) the fetchers may
  // connect to. Closed by default, so links, redirects and DNS names cannot
  // turn the crawler against the network it runs in; a seed opens its own:
  // a seed at an IP address opens that address's block (127.0.0.0/8,
  // 10.0.0.0/8, ...), a seed named localhost opens loopback, and a seed by
  // any other name opens that name (whatever it resolves to). Sent to the
  // fetchers as the NetworkPolicy (network_policy.h).
  bool allow_private_addresses = false;
  std::vector<std::string> allow_networks;  // CIDR blocks opened besides
  // Which URLs are in (ScopePolicy) and how many are admitted
  // (AdmissionLimits): the components take these structs as they are.
  ScopeRules scope_rules;
  AdmissionLimitsOptions limits;
  // Which URLs count as one in the seen set (UrlCanonicalizer).
  UrlKeyRules url_key;

  // --- Politeness, leases and retries (the scheduler's own settings) ---
  PolitenessOptions politeness;
  LeaseOptions leases;
  // Crawl the Sitemap: URLs robots.txt names (their <loc> URLs become
  // links; scope still applies).
  bool follow_sitemaps = false;
  // Most URLs sent in one batch to a fetcher.
  uint32_t max_batch = 64;

  // --- Liveness ---
  // Heartbeat period in both directions; a peer silent for
  // heartbeat_ms * liveness is dead and its leases return to the queue.
  LivenessOptions link;
  // After the crawl ends, wait this long for peers to say goodbye.
  int64_t shutdown_grace_ms = 3000;

  // --- Durable state ---
  // Folder of the durable state (frontier.db, a RocksDB database: see
  // url_store.h). Empty: not saved (the same store in a temporary folder),
  // and a killed frontier loses the crawl. ./run crawl passes OUT/.zcrawl.
  std::string state_dir;
  // Delete existing state and start over.
  bool fresh = false;
  // Most time between two group commits; a crash loses at most this much
  // bookkeeping (those URLs are simply fetched again). Lower costs fsyncs.
  int64_t commit_interval_ms = 200;
  // The crawl waits (hands out no work, commits nothing) while the state
  // folder's filesystem has less free space than this: room for RocksDB's
  // memtable flushes and small compactions, so its log never meets ENOSPC.
  // 256 MB: a few flushes at the largest memory budgets. 0: no floor.
  uint64_t min_free_mb = kDefaultMinFreeMb;

  // --- Threads ---
  // Threads that normalise, scope-check and fingerprint reported links,
  // sharing the known-URL cache.
  uint32_t link_threads = 2;
  // RAM the frontier's URL structures may use, whatever the number of known
  // URLs (split in memory_budget.h); everything else is on disk. 512 MB
  // fits beside a desktop's other work and holds ~2 x 10^8 URLs at a ~1%
  // seen-filter rate; beyond that seen checks cost more disk lookups.
  uint64_t memory_mb = 512;

  // Prometheus metrics over HTTP on this port (0: off), bound to
  // metrics_bind; keep it on loopback unless a scraper elsewhere needs it.
  uint16_t metrics_port = 0;
  std::string metrics_bind = "127.0.0.1";
  // The web console (frontier/console/console_server.h) on this port (0:
  // off; `./run crawl` picks a free one), bound to console_bind; beyond
  // loopback it asks for the token kept in STATE/console.token.
  uint16_t console_port = 0;
  std::string console_bind = "127.0.0.1";

  // If set, a JSON summary of the crawl is written here on exit.
  std::string summary_file;

  // Exit when the crawl is finished (false: stay up for status queries).
  bool exit_when_done = true;

  SecurityOptions security;
  LoggingOptions logging;
};

}  // namespace zcrawl::frontier

// FetcherOptions: every setting of a fetcher process, with its default and
// trade-off. docs/CONFIG.md lists the same keys.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/logging.h"
#include "net/liveness_options.h"
#include "net/security_options.h"

namespace zcrawl::fetcher {

class PrivateAddressGuard;

// The most transfers a fetcher runs at once (--threads, and SetThreads at
// run time).
inline constexpr uint32_t kMaxThreads = 4096;
// The most idle connections --keep-connections may keep.
inline constexpr uint32_t kMaxKeptConnections = 16384;
// Open files a fetcher may need: a transfer may hold two sockets while it
// connects (happy eyeballs), libcurl keeps up to --keep-connections (or
// twice --threads) connections for reuse (curl_multi_loop.cc), and a few
// more for the rest. Takes the most transfers SetThreads allows at run time.
inline uint64_t FetcherOpenFiles(uint32_t keep_connections) { return 2 * kMaxThreads + keep_connections + 256; }
// Each of `fetchers` fetchers' share of a process's open-files `limit`
// after `reserved` for its other parts (HttpOptions::open_files_share); 0
// (the whole limit) when unlimited.
inline uint64_t FetcherOpenFilesShare(uint64_t limit, uint32_t fetchers, uint64_t reserved) {
  if (limit == UINT64_MAX || fetchers == 0) return 0;
  return limit > reserved ? std::max<uint64_t>(1, (limit - reserved) / fetchers) : 1;
}

struct HttpOptions {
  // Names the crawler and where to learn about it, as polite crawlers do.
  std::string user_agent = "zcrawl/0.1 (+https://github.com/zcrawl/zcrawl)";
  int64_t connect_timeout_ms = 10000;
  // Whole transfer, including redirects followed by libcurl (robots.txt).
  int64_t total_timeout_ms = 60000;
  // Abort when slower than low_speed_bytes per second for low_speed_ms.
  int64_t low_speed_bytes = 100;
  int64_t low_speed_ms = 15000;
  // Bodies are cut off (and the URL failed as too large) past this many
  // decoded bytes, so gzip bombs stop early too.
  uint64_t max_body_bytes = 10ull << 20;
  // Redirects in a chain from the URL first linked. None is followed within
  // a fetch: each target goes back to the frontier as a link carrying the
  // count, so scope and the seen set decide there (curl_transfer.h).
  uint32_t max_redirects = 5;
  bool verify_tls = true;
  // Connections kept open for reuse, idle, across all origins (at least
  // twice the transfers that may run). A crawl rotates over more origins
  // than it has transfers: with 64 in flight over 1,000 origins, a cache of
  // 128 has closed an origin's connection before its next turn, and every
  // request paid a TCP and TLS handshake (bench/RESULTS.md run BF). An idle
  // TLS connection costs about 50 KB here and a socket on both ends;
  // libcurl closes one idle for 118 s. Capped by the open-files limit,
  // leaving the running transfers their sockets.
  uint32_t keep_connections = 1024;
  // PEM file of CA certificates to trust instead of the system's (a private
  // CA, a test CA). Empty: the system's bundle.
  std::string ca_file;
  // Record the request as sent (for WARC request records); costs libcurl's
  // verbose tracing on every request.
  bool capture_request_headers = true;
  // Fixed addresses for host names, "HOST:PORT:ADDRESS[,ADDRESS]" as curl's
  // --resolve: a staging site under its real name, a test. The address
  // guard still judges the address.
  std::vector<std::string> resolve;
  // Not a setting: the open files this fetcher may count on, when it shares
  // its process with others (./run crawl --single-process runs the
  // fetchers, the frontier and the writer as threads of one). 0: the
  // process's whole limit.
  uint64_t open_files_share = 0;
  // Not a setting: the node's guard over the addresses connected to, shared
  // by all its transfers and filled from the frontier's NetworkPolicy
  // (private_address_guard.h). Null (unit tests of the client): no check.
  std::shared_ptr<PrivateAddressGuard> address_guard;
};

// --io's values (fetcher_settings.cc names them).
enum class FetchIo { kMulti, kBlocking };

struct FetcherOptions {
  std::string frontier = "tcp://127.0.0.1:5570";
  std::string writer = "tcp://127.0.0.1:5571";
  // How fetches run. kMulti ("multi", default): one event-loop thread
  // drives every transfer (libcurl multi + epoll) and a pool of
  // parse_threads workers parses; a request in flight costs a socket, not a
  // thread. kBlocking ("blocking"): each worker thread fetches one URL at a
  // time and parses it. Both fetch with the same code (curl_transfer.h).
  FetchIo io = FetchIo::kMulti;
  // URLs held at once: transfers in flight (multi) or worker threads
  // (blocking). The frontier's per-host limit still applies. 64 because a
  // URL holds its slot until the writer has its page on disk, and on the
  // event loop a slot costs a socket, not a thread.
  uint32_t threads = 64;
  // Parse workers with --io multi; 0: one per core.
  uint32_t parse_threads = 0;
  // Extra URLs requested beyond free capacity, hiding the round trip to the
  // frontier. Larger hoards work another fetcher could do.
  // 32 so that, with the default 64 transfers, requests wait in the fetch
  // loop behind busy slots for the turn pacing to take its gap (below;
  // with 4 the queue was empty whenever a few pages waited for the
  // writer). A URL queued here waits ~50 ms at 676 pages/s; a host's
  // politeness is decided when the frontier leases, and one the frontier
  // holds back is not leased at all.
  uint32_t prefetch = 32;
  // While every fetch slot is busy and requests wait for one, the main
  // thread takes a turn at most every this many ms, so what finished in
  // between travels together (turn_pacer.h; 0: a turn per event). On the
  // web bench at the same pages/s, 10 ms cut the crawl's CPU per page by a
  // fifth, 20 by 8% more, 30 by 4% more (bench/RESULTS.md run BJ): 20 takes
  // most of the gain for a page's result reaching the frontier at most
  // 20 ms later.
  int64_t turn_gap_ms = 20;
  // Idle workers exit after this long (<0: never).
  int64_t keep_alive_ms = 60000;
  // A worker task running longer than this (a fetch and parse with
  // --io blocking, a parse with --io multi, whose transfers end by
  // libcurl's timeouts) is abandoned by the supervisor and reported as a
  // worker failure (0: off).
  int64_t watchdog_ms = 180000;
  // HTML parser backend: scan (default: no tree when no output wants text,
  // 6.7x MyHTML's speed on the 530 Python doc pages, every one read without
  // a tree; MyHTML for the pages its guard cannot vouch for and whenever
  // text is wanted: scan_html_parser.h), myhtml (~3x gumbo's speed) or gumbo
  // (the reference). All give the same results (scan_html_parser.h says
  // where not).
  std::string parser = "scan";
  // Follow links marked rel=nofollow or pages with meta robots nofollow.
  bool ignore_nofollow = false;
  // Extract visible text (jsonl and exec outputs use it; files and WARC do not).
  bool extract_text = true;
  // Send the page's links to the writer too (jsonl, WARC and exec outputs
  // list them). Off, they go only to the frontier: one copy fewer per link
  // and a smaller page message.
  bool page_links = true;
  // Page requisites: report what pages embed (stylesheets, scripts, images,
  // media, fonts, icons: ParsedHtml::embeds) and stylesheets' own
  // references, as embed links (v1::Link.embed). Off by default here; the
  // launcher turns it on for WARC and WACZ output, which archivists replay
  // and which replay unstyled and with broken images without them (as
  // wget's --page-requisites and Heritrix's embed hops do), and leaves it
  // off for files and jsonl, whose users want pages (--page-requisites asks
  // for it there). It costs the fetch of every requisite, often more
  // requests than pages.
  bool page_requisites = false;
  // Store non-HTML responses (true) or report them as skipped. Requisites
  // outside the scope (WorkItem.embed_hops) are stored whatever this says.
  bool store_non_html = true;
  // Heartbeats, liveness and the reconnect backoff after a peer is lost.
  LivenessOptions link;
  // Exit when the frontier says the crawl is over.
  bool exit_on_shutdown = true;
  SecurityOptions security;
  HttpOptions http;
  LoggingOptions logging;
};

// parse_threads resolved: the cores of this machine when 0.
inline uint32_t ParseThreads(const FetcherOptions& options) {
  if (options.parse_threads > 0) return options.parse_threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace zcrawl::fetcher

// ChaosCrawl: runs `./run crawl` over a generated site on loopback and
// kills its components with SIGKILL at random moments (a seeded schedule:
// every kind of process at least once, then random kinds), letting the
// launcher restart each one. Afterwards it gathers what a correct crawl
// must show despite the kills: every expected page in index.jsonl once,
// with WARC every page once in the WARC index and, by warcio's count, in
// the WARC files themselves, every URL in the frontier's store
// (frontier.db) final (2 done, 3 failed).
//
// Shared by tests/faults/chaos_short_test.cc (a short run in the suite) and
// bench/chaos/chaos_test.cc (thousands of pages). One object runs one crawl;
// not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace zcrawl::testing {

struct ChaosOptions {
  int pages = 3000;      // generated pages (plus a home page and some 404s)
  int kills = 12;        // SIGKILLs; at least 3 so every kind is hit
  uint32_t seed = 1;     // the kill schedule (kinds, moments, victims)
  int fetchers = 2;      // fetcher processes under the launcher
  int threads = 4;       // workers per fetcher
  int delay_ms = 5;      // politeness delay: stretches the crawl for the kills
  int per_host = 2;
  int timeout_ms = 600000;  // the whole crawl
  // --format of the crawl. With "warc" in it, the WARC index must hold
  // every page once as well (its pipelined group commit under SIGKILL).
  std::string format = "files";
  // Which components the kills choose from after each kind was hit once
  // (ZCRAWL_CHAOS_KINDS, e.g. "writer"): all three by default.
  std::vector<std::string> kinds = {"frontier", "writer", "fetcher"};
};

struct ChaosKill {
  std::string kind;        // "frontier", "writer" or "fetcher"
  pid_t pid = 0;
  int64_t at_ms = 0;       // since the crawl started
  uint64_t pages_before = 0;  // distinct paths requested when it was killed
};

struct ChaosReport {
  int exit_code = -1;          // of ./run crawl; -1: did not finish in time
  int64_t duration_ms = 0;
  std::vector<ChaosKill> kills;
  std::map<std::string, int> kills_by_kind;
  uint64_t expected_pages = 0;  // URLs that must be in index.jsonl (200 and 404)
  uint64_t stored_urls = 0;     // distinct URLs in index.jsonl
  uint64_t missing = 0;         // expected but not stored
  uint64_t duplicates = 0;      // index lines beyond the first per URL
  uint64_t unexpected = 0;      // stored URLs that should not be
  bool warc = false;             // the crawl wrote WARC too
  uint64_t warc_missing = 0;     // expected but not in the WARC index
  uint64_t warc_duplicates = 0;  // WARC index lines beyond the first per URL
  // In the WARC files themselves, as warcio's parser reads them
  // (CountWarcCaptures): captures (response and revisit records), and
  // those beyond the first per URI; an error when they could not be read.
  uint64_t warc_file_captures = 0;
  uint64_t warc_file_duplicates = 0;
  std::string warc_file_error;
  uint64_t server_requests = 0;
  uint64_t distinct_paths = 0;  // distinct targets requested on the site
  uint64_t forbidden_requests = 0;  // out-of-scope paths or hosts requested
  std::map<int, uint64_t> db_states;  // SQLite urls.state -> rows
  uint64_t db_ok_not_done = 0;  // expected-200 URLs whose row is missing or not done
  std::string db_error;         // non-empty: the state could not be read
  std::string out_dir;
  std::string log_path;

  uint64_t refetches() const { return server_requests - distinct_paths; }
  // One line of figures for people.
  std::string Figures() const;
};

class ChaosCrawl {
 public:
  explicit ChaosCrawl(ChaosOptions options) : options_(options) {}
  ChaosReport Run();

 private:
  ChaosOptions options_;
};

// ChaosOptions from the environment (ZCRAWL_CHAOS_PAGES, _KILLS, _SEED,
// _DELAY_MS, _KINDS as a comma list, _FORMAT), with `defaults` for what is
// unset.
ChaosOptions ChaosOptionsFromEnv(ChaosOptions defaults);

// The gtest expectations both chaos tests share: exit 0, every kill done
// and each kind hit, coverage 100%, no duplicates, every URL final.
void ExpectCrawlSurvivedChaos(const ChaosOptions& options, const ChaosReport& report);

}  // namespace zcrawl::testing

// CrawlOptions: the settings of `./run crawl`, the one-machine launcher. Most
// are handed to the component processes as their flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zcrawl::launcher {

struct CrawlOptions {
  std::vector<std::string> seeds;
  std::string out_dir = "crawl-out";
  std::string format = "files";
  uint32_t fetchers = 2;           // fetcher processes
  uint32_t threads = 64;           // URLs each fetcher fetches at once
  std::string io = "multi";        // see FetcherOptions::io
  uint64_t max_pages = 0;          // 0: unlimited
  int32_t max_depth = -1;          // -1: unlimited
  int64_t delay_ms = 250;
  uint32_t per_host = 2;
  bool obey_robots = true;
  bool follow_sitemaps = false;  // crawl the sitemaps robots.txt names
  uint32_t retries = 3;
  std::vector<std::string> allow_domains;
  std::vector<std::string> allow_patterns;  // --allow REGEX
  std::vector<std::string> deny_patterns;   // --deny REGEX
  uint64_t max_pages_per_host = 0;          // 0: unlimited
  uint32_t max_query_variants = 1000;       // distinct queries per path (0: unlimited)
  std::string parser = "myhtml";  // see FetcherOptions::parser
  // Components' log level; empty: warn on a terminal (the live progress
  // line says the rest), info otherwise.
  std::string log_level;
  bool log_json = false;
  // Ports on 127.0.0.1; 0 picks free ones.
  uint16_t frontier_port = 0;
  uint16_t writer_port = 0;
  // Start over: delete the saved state and output of an earlier crawl in
  // out_dir. Without it an unfinished crawl there is resumed.
  bool fresh = false;
  // Restarts of a crashed process before the crawl gives up.
  uint32_t max_restarts = 20;
  // After the frontier finished, how long the others may take to exit.
  int64_t exit_grace_ms = 15000;
};

}  // namespace zcrawl::launcher

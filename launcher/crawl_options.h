// CrawlOptions: the settings of `./run crawl` that belong to the launcher
// itself. Every frontier, fetcher and writer setting is declared from the
// component's own definition instead (launcher/component_settings.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fetcher/fetcher_options.h"
#include "frontier/frontier_options.h"
#include "writer/writer_options.h"

namespace zcrawl::launcher {

struct CrawlOptions {
  std::vector<std::string> seeds;  // positional; --seeds FILE is the frontier's
  uint32_t fetchers = 2;           // fetcher processes (threads of one with single_process)
  // The frontier, the writer and the fetchers as threads of one process
  // (zcrawl-local) linked in memory instead of over sockets: less CPU per
  // page; a crash of one component restarts them all (launcher/local_main.cc).
  bool single_process = false;
  // Ports on 127.0.0.1; 0 picks free ones.
  uint16_t frontier_port = 0;
  uint16_t writer_port = 0;
  // Start over: delete the saved state and output of an earlier crawl in
  // the output folder. Without it an unfinished crawl there is resumed.
  bool fresh = false;
  // Restarts of a crashed process before the crawl gives up.
  uint32_t max_restarts = 20;
  // After the frontier finished, how long the others may take to exit.
  int64_t exit_grace_ms = 15000;
  // An earlier crawl's output folder to crawl again (recrawl.h): every URL
  // it captured, asked conditionally, into a new --out.
  std::string recrawl;

  // The components' settings as the user gave them (defaults otherwise);
  // the launcher reads a few (output folder, format, metrics port).
  frontier::FrontierOptions frontier;
  fetcher::FetcherOptions fetcher;
  writer::WriterOptions writer;
};

}  // namespace zcrawl::launcher

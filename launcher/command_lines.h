// The command lines the launcher gives its processes: frontier, writer and
// fetchers (or, with --single-process, the one zcrawl-local that runs all
// three as threads), from the crawl's options, the settings the user gave
// for each component (forwarded as given), and the folders and endpoints
// the launcher chose. Settings the user did not give are decided here: the
// log level, the writer's metrics port, and fetcher work no output needs
// (--no-text, --no-page-links, --no-request-headers, --page-requisites).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "launcher/component_settings.h"
#include "launcher/crawl_options.h"

namespace zcrawl::launcher {

// What the launcher chose before building the command lines.
struct CrawlLayout {
  std::string bin_dir;              // where zcrawl-frontier etc. are
  uint16_t frontier_port = 0;       // loopback TCP ports, for tools and probes
  uint16_t writer_port = 0;
  uint16_t console_port = 0;        // the web console's, when the user gave none (0: off)
  std::string state_dir;            // OUT/.zcrawl
  std::string seeds_file;           // the frontier's --seeds
  std::string summary_file;         // the frontier's --summary-file
  std::string writer_summary_file;  // the writer's --summary-file
  std::string recrawl_list;         // the frontier's --recrawl-list ("" without --recrawl)
  std::vector<std::string> dedup_indexes;  // --recrawl's CDXJ files for the writer
  std::string log_level;            // when the user gave none
};

struct CrawlCommandLines {
  // argv[0] is the binary; with single_process only `local` is set.
  std::vector<std::string> frontier, writer, fetcher, local;
};

CrawlCommandLines BuildCommandLines(const CrawlOptions& options, const ForwardedSettings& forwarded,
                                    const CrawlLayout& layout);

// True if --format names wacz (the launcher packs the WARC files at the end).
bool WantsWacz(const std::string& format);

}  // namespace zcrawl::launcher

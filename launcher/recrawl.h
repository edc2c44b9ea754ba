// Recrawl: `./run crawl --recrawl OLD --out NEW` crawls again what the crawl
// in OLD captured. Decisions, and why:
//   - The output goes to a new folder: the earlier crawl stays as it was
//     (an archive is not rewritten), and the new one holds what changed
//     plus a record or line per unchanged page naming the capture that
//     stands (a WARC revisit record, server-not-modified profile; an
//     "unchanged" line in index.jsonl or pages.jsonl). The same folder is
//     refused.
//   - Every URL OLD's indexes list is fetched again (writer/earlier_captures.h),
//     with If-None-Match and If-Modified-Since from what OLD stored; links
//     found in changed pages are crawled as usual (same scope, depth,
//     politeness and robots rules). OLD's depth-0 URLs are seeds besides
//     the ones given, so the scope is OLD's.
//   - With WARC output, OLD's per-file CDXJ indexes become --dedup-index
//     files, so a changed URL whose payload OLD already holds (a page that
//     changed back, a mirror) is a revisit too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace zcrawl::launcher {

// Refuses OLD == NEW (or one inside the other's state), and an OLD that
// holds no crawl index.
Status CheckRecrawlFolders(const std::string& old_dir, const std::string& out_dir);

// OLD's depth-0 URLs, each once, in index order.
Result<std::vector<std::string>> RecrawlSeeds(const std::string& old_dir);

// Writes the frontier's --recrawl-list (frontier_options.h) for OLD to
// `path`; the number of captures written.
Result<uint64_t> WriteRecrawlList(const std::string& old_dir, const std::string& path);

// OLD's per-WARC-file CDXJ indexes (NAME.cdxj beside NAME.warc.gz).
std::vector<std::string> RecrawlDedupIndexes(const std::string& old_dir);

}  // namespace zcrawl::launcher

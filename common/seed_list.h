// Seed lists: `--seeds FILE` on `./run crawl` and the frontier. One URL a
// line; blank lines and lines starting with '#' are skipped; "-" reads
// standard input. A line that is not an http(s) URL is reported with its
// line number and skipped, so one typo does not stop a list of millions.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "common/status.h"

namespace zcrawl {

struct SeedList {
  std::vector<std::string> urls;    // as written, in order
  std::vector<std::string> errors;  // "FILE:LINE: why", one per bad line
};

// An http(s) URL that can be crawled, or why not.
Status CheckSeedUrl(const std::string& text);

SeedList ParseSeedList(std::istream& in, const std::string& source_name);

// Reads `path` ("-": standard input); fails only when it cannot be read.
Result<SeedList> ReadSeedList(const std::string& path);

}  // namespace zcrawl

// RunWarcChecker: runs tests/writer/warc_check.py, the independent reader
// of the WARC files our writer makes (Python stdlib), over a folder or a
// file, and returns its exit code and JSON summary. CountWarcCaptures: a
// second independent reader, warcio's, counting captures per URI.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace zcrawl::testing {

struct WarcCheckResult {
  int exit_code = -1;
  nlohmann::json summary;  // the checker's, or {command, output} when it printed no JSON
};

WarcCheckResult RunWarcChecker(const std::string& path);

// warcio's own parser (the npm package ./run test installs into
// build/node) counting the captures in `dir`'s *.warc.gz files
// (tests/node/warc_captures.mjs): {files, records, captures, uris,
// duplicated}. exit_code -1 when warcio is not installed.
WarcCheckResult CountWarcCaptures(const std::string& dir);

}  // namespace zcrawl::testing

// RunWarcChecker: runs tests/writer/warc_check.py, the independent reader
// of the WARC files our writer makes (Python stdlib), over a folder or a
// file, and returns its exit code and JSON summary.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace zcrawl::testing {

struct WarcCheckResult {
  int exit_code = -1;
  nlohmann::json summary;  // the checker's, or {command, output} when it printed no JSON
};

WarcCheckResult RunWarcChecker(const std::string& path);

}  // namespace zcrawl::testing

// Reading a crawl's files-sink output back for assertions: index.jsonl
// parsed into url -> entries (a URL stored twice shows up twice).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace zcrawl::testing {

struct IndexEntry {
  std::string url;
  int status = 0;
  std::string file;
  std::string content_type;
  uint64_t bytes = 0;
};

// url -> every index line naming it. Fails the test (ADD_FAILURE) on a
// line that is not valid JSON.
std::map<std::string, std::vector<IndexEntry>> ReadIndex(const std::string& out_dir);

}  // namespace zcrawl::testing

// Reading a crawl's output back for assertions: the files sink's
// index.jsonl (or the WARC sink's PREFIX-index.jsonl, whose lines carry the
// same "url" key) parsed into url -> entries (a URL stored twice shows up
// twice).
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
std::map<std::string, std::vector<IndexEntry>> ReadIndex(const std::string& out_dir,
                                                         const std::string& file_name = "index.jsonl");

}  // namespace zcrawl::testing

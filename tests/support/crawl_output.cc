#include "tests/support/crawl_output.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace zcrawl::testing {

std::map<std::string, std::vector<IndexEntry>> ReadIndex(const std::string& out_dir,
                                                         const std::string& file_name) {
  std::map<std::string, std::vector<IndexEntry>> out;
  std::ifstream in(out_dir + "/" + file_name);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      ADD_FAILURE() << "index line is not JSON: " << line;
      continue;
    }
    IndexEntry entry;
    entry.url = json.value("url", "");
    entry.status = json.value("status", 0);
    entry.file = json.value("file", "");
    entry.content_type = json.value("content_type", "");
    entry.bytes = json.value("bytes", uint64_t{0});
    out[entry.url].push_back(entry);
  }
  return out;
}

}  // namespace zcrawl::testing

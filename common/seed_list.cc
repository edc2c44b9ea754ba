#include "common/seed_list.h"

#include <fstream>
#include <iostream>

#include "common/ascii.h"
#include "common/url.h"

namespace zcrawl {

Status CheckSeedUrl(const std::string& text) {
  auto url = Url::Parse(text);
  if (!url.ok()) return InvalidArgumentError("'" + text + "' is not a URL: " + url.status().message());
  if (url->scheme() != "http" && url->scheme() != "https") {
    return InvalidArgumentError("'" + text + "' is not an http or https URL");
  }
  return Status();
}

SeedList ParseSeedList(std::istream& in, const std::string& source_name) {
  SeedList list;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    const std::string_view text = TrimAsciiWhitespace(line);
    if (text.empty() || text.front() == '#') continue;
    const std::string url(text);
    if (Status s = CheckSeedUrl(url); !s.ok()) {
      list.errors.push_back(source_name + ":" + std::to_string(number) + ": " + s.message());
      continue;
    }
    list.urls.push_back(url);
  }
  return list;
}

Result<SeedList> ReadSeedList(const std::string& path) {
  if (path == "-") return ParseSeedList(std::cin, "stdin");
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot read seed list " + path);
  return ParseSeedList(in, path);
}

}  // namespace zcrawl

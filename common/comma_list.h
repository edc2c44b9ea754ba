// Comma-separated lists as command lines and config files give them
// (endpoint lists, --format): the one way they are split. Items keep their
// order; empty items (",a,,b,") are skipped; nothing is trimmed.
// Header-only pure function: safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zcrawl {

inline std::vector<std::string> SplitCommaList(std::string_view list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    if (comma > start) items.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

}  // namespace zcrawl

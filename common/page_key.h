// A page's key: what the writer stores each capture under at most once
// (v1::Page.dedup_key), so that a page redelivered after a crash is not
// stored twice. It is the leased URL, except for a continuous crawl's later
// rounds of a URL, each a capture of its own: URL + "#refetch-after-" + the
// wall-clock ms of the capture before. A redelivery of the same round has
// the same lease, hence the same key. Leased URLs carry no fragment, so no
// key of a later round is a URL. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zcrawl {

inline std::string PageKey(std::string_view url, int64_t previous_capture_ms) {
  std::string key(url);
  if (previous_capture_ms != 0) key += "#refetch-after-" + std::to_string(previous_capture_ms);
  return key;
}

// The URL a key was made from.
inline std::string_view UrlOfPageKey(std::string_view key) { return key.substr(0, key.find('#')); }

}  // namespace zcrawl

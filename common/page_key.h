// A page's key: what the writer stores each capture under at most once
// (v1::Page.dedup_key), so that a page redelivered after a crash is not
// stored twice. It is the leased URL, except for a continuous crawl's later
// rounds of a URL, each a capture of its own: URL + "#round-" + the
// wall-clock ms at which that round was due (v1::Validators.round_due_ms,
// distinct per round, failed rounds included). A redelivery of the same
// round has the same lease, hence the same key. Leased URLs carry no
// fragment, so no key of a later round is a URL. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zcrawl {

inline std::string PageKey(std::string_view url, int64_t round_due_ms) {
  std::string key(url);
  if (round_due_ms != 0) key += "#round-" + std::to_string(round_due_ms);
  return key;
}

// The URL a key was made from.
inline std::string_view UrlOfPageKey(std::string_view key) { return key.substr(0, key.find('#')); }

}  // namespace zcrawl

// The bytes of one waiting URL, as its origin's queue keeps it: on disk as
// the value of its `queue` record (url_store.h), and in RAM in its origin's
// queue head (url_head.h). One encoding for both, so a head holds what the
// disk holds, a few dozen bytes a URL instead of a record and a string:
//
//   varint depth, varint attempts, flags byte, URL
//
// The flags byte: bit 0 says the URL does not start with its origin (stored
// whole; else only what follows the origin is stored), bits 1-5 hold its
// redirect hops, bits 6-7 its embed hops (records written before either
// existed read as 0; redirect hops never exceeded 21, --max-redirects'
// bound, so none used bits 6-7).
//
// Pure functions; thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/varint.h"

namespace zcrawl::frontier {

constexpr uint32_t kMaxStoredRedirectHops = 31;
constexpr uint32_t kMaxStoredEmbedHops = 3;

// A waiting URL's fields, the URL relative to its origin when it starts
// with it (`rest`, a view into the encoded bytes).
struct QueuedValueView {
  uint32_t depth = 0;
  uint32_t attempts = 0;
  uint32_t redirect_hops = 0;
  uint32_t embed_hops = 0;
  bool under_origin = true;
  std::string_view rest;
  // The whole URL again.
  std::string Url(std::string_view origin) const {
    std::string url;
    url.reserve((under_origin ? origin.size() : 0) + rest.size());
    if (under_origin) url.append(origin);
    url.append(rest);
    return url;
  }
};

// Appends the encoding of a waiting URL of `origin` to `out`; hops past
// what the flags byte holds are kept at its maximum.
inline void AppendQueuedValue(std::string_view origin, std::string_view url, uint32_t depth,
                              uint32_t attempts, uint32_t redirect_hops, uint32_t embed_hops,
                              std::string* out) {
  PutVarint(depth, out);
  PutVarint(attempts, out);
  const bool under_origin = url.compare(0, origin.size(), origin) == 0;
  const uint32_t hops = std::min(redirect_hops, kMaxStoredRedirectHops);
  const uint32_t embeds = std::min(embed_hops, kMaxStoredEmbedHops);
  out->push_back(static_cast<char>((embeds << 6) | (hops << 1) | (under_origin ? 0u : 1u)));
  out->append(under_origin ? url.substr(origin.size()) : url);
}

// The inverse of AppendQueuedValue; false if `value` is malformed.
inline bool ParseQueuedValue(std::string_view value, QueuedValueView* view) {
  size_t offset = 0;
  uint64_t depth = 0, attempts = 0;
  if (!GetVarint(value, &offset, &depth) || !GetVarint(value, &offset, &attempts) ||
      offset >= value.size() || depth > UINT32_MAX || attempts > UINT32_MAX) {
    return false;
  }
  const auto flags = static_cast<uint8_t>(value[offset++]);
  view->depth = static_cast<uint32_t>(depth);
  view->attempts = static_cast<uint32_t>(attempts);
  view->under_origin = (flags & 1) == 0;
  view->redirect_hops = (flags >> 1) & kMaxStoredRedirectHops;
  view->embed_hops = flags >> 6;
  view->rest = value.substr(offset);
  return true;
}

}  // namespace zcrawl::frontier

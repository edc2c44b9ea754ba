// The frontier's vocabulary for one URL: its lifecycle state and the record
// that travels between the queues, the lease table and the retry heap.
//
//   (admitted) -> WAITING --lease--> LEASED --report ok--> DONE
//                    ^                 |  \--final error--> FAILED(reason)
//                    |                 |
//                    +--retryable error, lease expiry, fetcher lost
//                       (attempts left; else FAILED(reason))
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zcrawl::frontier {

enum class UrlState : uint8_t { kWaiting, kLeased, kDone, kFailed };

std::string_view UrlStateName(UrlState state);

struct UrlRecord {
  std::string url;       // normalised, absolute, no fragment
  uint32_t origin = 0;   // index of its HostSlot
  uint32_t depth = 0;    // hops from a seed
  uint32_t attempts = 0; // fetch attempts already made
  uint64_t seq = 0;      // place in its origin's queue (UrlStore key); 0: none
  uint32_t redirect_hops = 0;  // redirects taken to reach it (v1::WorkItem)
  uint32_t embed_hops = 0;     // a requisite this many embeds outside the scope (v1::WorkItem)
};

}  // namespace zcrawl::frontier

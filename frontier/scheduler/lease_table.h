// LeaseTable: the URLs handed to fetchers and not yet answered, each under
// a lease id, a holder and a deadline.
//
// The atomic claim of the design: a report counts only if it names a live
// lease by id, URL and holder (TakeMatching); whoever takes a lease first
// (the report, the expiry, the holder's loss) owns what happens to its URL
// and everyone after finds nothing. Lease ids start at a random epoch, so a
// report from before a frontier restart cannot match a lease of this run.
// Deadlines are a lazy heap: a taken lease's entry is skipped when it
// comes up. Used by the broker thread only (no locks).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontier/store/url_record.h"

namespace zcrawl::frontier {

struct ActiveLease {
  UrlRecord record;
  std::string fetcher;
  int64_t leased_ms = 0;  // when it was handed out
  int64_t deadline_ms = 0;
  bool robots_only = false;  // the origin's robots.txt, not a queued URL
  uint32_t address_key = 0;  // the address budget it counts against (AddressBudgets)
};

class LeaseTable {
 public:
  LeaseTable();

  // Adds a lease; returns its id.
  uint64_t Add(ActiveLease lease);
  // Takes the lease `id` if `fetcher` holds it for `url`; else nothing
  // changes (a stale report, or a confused peer).
  std::optional<ActiveLease> TakeMatching(uint64_t id, const std::string& url, const std::string& fetcher);
  // Takes the lease `id` whoever holds it; nothing if it is gone.
  std::optional<ActiveLease> Take(uint64_t id);
  // The id of a live lease whose deadline is at or before `now_ms`, its
  // deadline entry consumed; nothing when none is due.
  std::optional<uint64_t> NextExpired(int64_t now_ms);
  // Gives every lease at least `deadline_ms`.
  void ExtendAll(int64_t deadline_ms);
  // Ids of `fetcher`'s leases, less those in `except`.
  std::vector<uint64_t> IdsOf(const std::string& fetcher,
                              const std::unordered_set<uint64_t>* except = nullptr) const;
  // Leases `fetcher` holds (kept per fetcher: the dispatch asks it for
  // every fetcher at every turn).
  uint64_t CountOf(const std::string& fetcher) const;
  // The earliest deadline (a taken lease's may stand in: early, never
  // late); INT64_MAX without leases.
  int64_t NextDeadlineMs() const;
  const ActiveLease* Find(uint64_t id) const;

  size_t size() const { return leases_.size(); }
  bool empty() const { return leases_.empty(); }
  // This run's first lease id: a token that tells this run from others.
  uint64_t epoch() const { return epoch_; }

 private:
  using Deadline = std::pair<int64_t, uint64_t>;  // (deadline, lease id)
  std::unordered_map<uint64_t, ActiveLease> leases_;
  std::unordered_map<std::string, uint64_t> count_of_;  // fetcher -> leases held
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<Deadline>> deadlines_;
  uint64_t epoch_;
  uint64_t next_id_;
};

}  // namespace zcrawl::frontier

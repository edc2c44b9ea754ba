// RefetchSchedule: a continuous crawl's timetable (frontier --continuous),
// kept in the UrlStore so that a restart keeps it. Each done URL has one
// entry, keyed by when it is due (wall-clock ms, so the time survives a
// restart and a reboot) and then its seen key:
//
//   meta family  "refetch/" + due (8, big-endian) + seen key (12)
//                -> depth, redirect hops, embed hops (varints), URL
//
// so the due ones are one range scan from the front. Its state for the
// next fetch (validators, body hash, interval: v1::Validators) is the
// URL's validators entry, which its lease carries (UrlStore::GetValidators).
//
// TakeDue writes what is staged first, so it sees every entry scheduled
// so far and none it took before; it stages each entry's removal, and the
// broker stages the URL's new queue entry in the same batch, so after a
// crash a URL is either still scheduled or queued, never both nor neither.
//
// Owned by the broker thread, like the store; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "frontier/store/url_fingerprint.h"
#include "frontier/store/url_store.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

struct ScheduledUrl {
  std::string url;
  uint32_t depth = 0;
  uint32_t redirect_hops = 0;
  uint32_t embed_hops = 0;
};

// A URL's next fetch, planned when its report came and scheduled with
// its final state (Broker::RecordParent).
struct RefetchPlan {
  ScheduledUrl url;
  int64_t due_wall_ms = 0;
  v1::Validators state;  // what its next lease carries, with the interval
};

class RefetchSchedule {
 public:
  // `store` outlives the schedule.
  explicit RefetchSchedule(UrlStore& store) : store_(store) {}

  // Stages `url`'s next fetch at `due_wall_ms` and the state its lease
  // will carry.
  void Schedule(const ScheduledUrl& url, int64_t due_wall_ms, const v1::Validators& state);

  // Takes up to `max` URLs due by `now_wall_ms`, earliest first, staging
  // their entries' removal (after writing what was staged: one fsync). A
  // malformed entry is removed and counted.
  Status TakeDue(int64_t now_wall_ms, size_t max, std::vector<ScheduledUrl>* out);

  // When the next URL is due (INT64_MAX: none is scheduled). Before the
  // first TakeDue of a resumed crawl it is 0 (unknown: look now).
  int64_t next_due_wall_ms() const { return next_due_wall_ms_; }
  uint64_t malformed() const { return malformed_; }

  // The schedule of a stopped crawl's state, earliest first (inspection).
  static Status ForEach(UrlStore& store,
                        const std::function<bool(int64_t due_wall_ms, const ScheduledUrl& url)>& visit);

 private:
  UrlStore& store_;
  int64_t next_due_wall_ms_ = 0;
  uint64_t malformed_ = 0;
};

}  // namespace zcrawl::frontier

// OriginTable: every origin the crawl knows, by id (= its id in the store):
// those in RAM as slots (HostSlot), the others parked in the store, and
// the line of parked origins waiting for their turn.
//
// Parking: an origin with nothing in RAM but its slot (nothing in its
// head, leased, waiting for a retry; every final state recorded; its
// politeness time passed) leaves RAM once its record and robots rules are
// written: the store holds its counters (`origins` family), its rules, and
// its name -> id (UrlStore::FindOrigin). Two kinds park:
//   - idle: nothing queued on disk either. A URL admitted for it, or a
//     final state recorded late for it, loads it again (a point read or
//     two). A broad crawl's finished hosts cost no RAM.
//   - waiting its turn: URLs on disk, but RAM holds `max_active_origins`
//     origins and others are waiting. Like Heritrix's inactive queues: an
//     origin whose head runs dry while origins wait (or past the bound)
//     yields instead of refilling, parks once nothing of it is in flight,
//     and goes to the back of the line (its id, 4 bytes); the front of the
//     line is loaded whenever RAM has room. A broad crawl of 10^7 hosts
//     with URLs queued holds the slots of the bound only.
// Without a store nothing parks.
//
// Slots are nodes of a map: a reference to one stays valid until its
// origin parks. Used by the broker thread only (no locks).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "frontier/frontier_options.h"
#include "frontier/scheduler/host_slot.h"
#include "frontier/scheduler/origin_memory.h"
#include "frontier/scheduler/origin_name_index.h"
#include "frontier/scheduler/origin_status_board.h"
#include "frontier/scheduler/queue_heads.h"
#include "frontier/scheduler/robots_keeper.h"
#include "frontier/store/url_record.h"
#include "frontier/store/url_store.h"

namespace zcrawl::frontier {

struct OriginTableOptions {
  // A new origin's delay, and whether it needs robots.txt first.
  PolitenessOptions politeness;
  // Origins with URLs queued that may be in RAM at once (with a store);
  // the others wait their turn parked.
  uint64_t max_active_origins = UINT64_MAX;
};

class OriginTable {
 public:
  // `store`: null without one (nothing parks). The others are the
  // scheduler's parts a slot's arrival and departure touch. Not owned.
  OriginTable(OriginTableOptions options, UrlStore* store, const Clock& clock, OriginMemory& memory,
              QueueHeads& heads, RobotsKeeper& robots, OriginStatusBoard& board);

  // The slot of an origin id, loaded from the store if it is parked (a
  // stand-in without a name, never staged, if the store cannot give it).
  HostSlot& Slot(uint32_t id);
  // The slot of an id in RAM; null if it is parked.
  HostSlot* Loaded(uint32_t id);
  // The slot of `origin` in RAM or loaded if parked; null if unknown.
  HostSlot* Find(std::string_view origin);
  // Find, or a new origin's slot (its name staged); returns its id.
  uint32_t IdFor(std::string_view origin);
  // Re-creates an origin of a resumed crawl; origins come in id order.
  // One with URLs queued gets a slot while RAM has room (they stay on disk
  // until leased), the others stay parked, in line if they have URLs.
  // `*loaded`: it has a slot now.
  Status Restore(const StoredOrigin& origin, bool* loaded);

  // Loads origins from the front of the line while RAM has room; returns
  // their ids (empty, and nothing read, while the line is empty).
  std::vector<uint32_t> LoadWaiting();
  // RAM holds more origins than the bound, or as many while others wait.
  bool MustYield() const {
    return slots_.size() > options_.max_active_origins ||
           (!line_.empty() && slots_.size() >= options_.max_active_origins);
  }
  // Its head ran dry while others wait: it yields its turn and parks once
  // nothing of it is in flight.
  void Yield(HostSlot& slot);

  // Its record changed: staged at the next StageDirty.
  void MarkDirty(HostSlot& slot);
  // A failed fetch of the origin: its last failure, kept in its record too.
  void SetLastFailure(HostSlot& slot, std::string failure);
  // The broker recorded a final state of one of its URLs in the store.
  void RecordedFinal(uint32_t id, UrlState state);
  // Stages the records of origins changed since the last call (at each
  // commit), spills idle origins' robots rules once the store holds them,
  // and parks the origins with nothing due whose record the store holds.
  void StageDirty();

  // URLs admitted for `origin` so far (refetches not counted), loading it
  // if parked.
  uint64_t Admitted(std::string_view origin);
  // When LoadWaiting could next load an origin; INT64_MAX if never now.
  int64_t NextLineMs() const;

  const OriginSlots& slots() const { return slots_; }
  // Every origin the crawl knows; those in RAM; parked; in line.
  size_t known() const { return next_id_; }
  size_t loaded_count() const { return slots_.size(); }
  uint64_t parked() const { return parked_; }
  uint64_t in_line() const { return line_.size(); }
  // Turns given up by origins with URLs left; origins loaded back; reads
  // of a parked origin that failed (each logged).
  uint64_t yields() const { return yields_; }
  uint64_t unparked() const { return unparked_; }
  uint64_t errors() const { return errors_; }
  // RAM the slots and the line hold (with OriginMemory's heap blocks).
  uint64_t bytes() const {
    return slots_.size() * OriginMemory::kSlotBytes + memory_.heap_bytes() + line_.size() * sizeof(uint32_t);
  }

 private:
  HostSlot& NewSlot(uint32_t id, std::string_view origin);
  // A slot from a stored record: a parked origin, or (`restore`) one of a
  // resumed crawl, whose robots rules are an earlier run's.
  HostSlot& LoadSlot(const StoredOrigin& record, bool restore);
  // A parked origin's slot, loaded; null (counted, logged) when the store
  // cannot give its record.
  HostSlot* LoadParked(uint32_t id);
  HostSlot& Unpark(const StoredOrigin& record);
  StoredOrigin RecordOf(const HostSlot& slot) const;
  // A back-off to and from its record: monotonic ms (the scheduler's) to
  // wall ms and back (a restart starts a new monotonic clock).
  StoredBackoff BackoffRecordOf(const HostSlot& slot) const;
  void RestoreBackoff(const StoredBackoff& stored, HostSlot& slot) const;
  void LeaveLine(HostSlot& slot);
  // Nothing of it in RAM but its slot, its record exact (the parking rule
  // above, less the conditions that pass by themselves: a write landing,
  // the politeness time, a heap entry).
  bool Quiet(const HostSlot& slot) const;
  bool Parkable(const HostSlot& slot) const { return Quiet(slot) && (slot.backlog == 0 || slot.yielding); }
  // `written_at`: the settled batches at which the store holds its record.
  void AddParkCandidate(HostSlot& slot, uint64_t written_at);
  void ParkCandidates();
  void Park(HostSlot& slot);

  const OriginTableOptions options_;
  UrlStore* store_;
  const Clock& clock_;
  OriginMemory& memory_;
  QueueHeads& heads_;
  RobotsKeeper& robots_;
  OriginStatusBoard& board_;

  // A node-based map: references to slots stay valid as origins come and
  // go (the name index points at them), and no array doubles (at 1.4 x
  // 10^5 origins a vector held capacity for 2.6 x 10^5, ~40 MB unused).
  OriginSlots slots_;
  OriginNameIndex by_name_;
  uint32_t next_id_ = 0;
  uint64_t parked_ = 0;
  uint64_t unparked_ = 0;
  uint64_t yields_ = 0;
  uint64_t errors_ = 0;
  // Parked origins with URLs queued, in the order they parked; not loaded
  // before line_retry_ms_ after a read of one failed.
  std::deque<uint32_t> line_;
  int64_t line_retry_ms_ = INT64_MIN;
  // Origins with nothing due, waiting for their record to be written (the
  // store write at which it is), their politeness time or their rules'
  // spill before they park.
  std::vector<std::pair<uint32_t, uint64_t>> park_candidates_;
  std::vector<uint32_t> dirty_;
};

}  // namespace zcrawl::frontier

// QueueHeads: the parts of the origins' queues that are in RAM, and the
// budget they share.
//
// With a UrlStore every admitted URL is a queue entry on disk and only a
// bounded head of each origin's queue is in RAM (`head_per_origin`, and
// `max_head_bytes` over all origins, packed records (url_head.h)), when
// URLs are enqueued and when a head is refilled: a refill takes at most the
// origin's fair share of the bound, and past the bound kMinRefill URLs, so
// RAM holds at most max_head_bytes + kMinRefill records per origin with
// URLs waiting; the rest (the slot's `backlog`) is loaded from disk when a
// head runs dry, in admission order. Without a store (unit tests) the
// whole queue is in RAM.
//
// Every change of a head or of a backlog goes through this class, which
// keeps loaded(), head_bytes() and backlogged_origins() exact. Used by the
// broker thread only.
#pragma once

#include <cstdint>

#include "frontier/scheduler/host_slot.h"
#include "frontier/scheduler/origin_memory.h"
#include "frontier/store/url_record.h"
#include "frontier/store/url_store.h"

namespace zcrawl::frontier {

// URLs a head refill takes when the heads are full, and at least.
inline constexpr uint64_t kMinRefill = 4;
// What a head record is taken to cost before any is loaded (a packed
// record: seq, depth, attempts, flags and the URL less its origin).
inline constexpr uint64_t kTypicalHeadUrlBytes = 64;
// Requisites of one origin that may jump its disk backlog at once (more
// wait their turn on disk, as every URL does after a restart).
inline constexpr size_t kMaxRequisitesLoadedAhead = 1024;

struct QueueHeadLimits {
  uint32_t head_per_origin = 64;       // URLs a refill loads at most
  uint64_t max_loaded = UINT64_MAX;    // URLs in all heads
  uint64_t max_head_bytes = UINT64_MAX;  // UrlHead::bytes of all heads
};

class QueueHeads {
 public:
  // `store`: null without one (nothing is ever on disk). Not owned.
  QueueHeads(QueueHeadLimits limits, UrlStore* store, OriginMemory& memory)
      : limits_(limits), store_(store), memory_(memory) {}

  // What a refill of an empty head found.
  struct Refill {
    bool failed = false;   // the store could not be read (counted, logged)
    uint64_t missing = 0;  // URLs the origin's record promised that were not on disk
  };
  // Loads the next part of the slot's disk backlog into its empty head.
  // Requisites loaded ahead are skipped.
  Refill RefillHead(HostSlot& slot);

  void PushBack(HostSlot& slot, const UrlRecord& record);
  void Insert(HostSlot& slot, size_t index, const UrlRecord& record);
  void PushFront(HostSlot& slot, const UrlRecord& record);
  UrlRecord PopFront(HostSlot& slot);
  void Clear(HostSlot& slot);
  void SetBacklog(HostSlot& slot, uint64_t backlog);

  // The heads are at max_loaded URLs or max_head_bytes.
  bool Full() const;
  // URLs the heads can still take within both bounds.
  uint64_t Room() const;
  // URLs a refill of an empty head takes.
  uint64_t RefillSize() const;
  uint32_t head_per_origin() const { return limits_.head_per_origin; }

  uint64_t loaded() const { return loaded_; }
  uint64_t head_bytes() const { return head_bytes_; }
  uint64_t backlogged_origins() const { return backlogged_origins_; }
  uint64_t refills() const { return refills_; }
  uint64_t errors() const { return errors_; }

 private:
  template <typename Change>
  void ChangeHead(HostSlot& slot, Change&& change);
  // A head record's bytes: the heads' mean so far, a typical URL's before
  // any is loaded.
  uint64_t UrlBytes() const;

  const QueueHeadLimits limits_;
  UrlStore* store_;
  OriginMemory& memory_;
  uint64_t loaded_ = 0;
  uint64_t head_bytes_ = 0;
  uint64_t backlogged_origins_ = 0;  // slots with URLs waiting on disk only
  uint64_t refills_ = 0;
  uint64_t errors_ = 0;
};

}  // namespace zcrawl::frontier

// WriterWantsCell: what the writer last asked its fetchers for
// (Heartbeat.writer_wants), set by the fetcher's network thread and read by
// the workers, once per page.
//
// The wishes are one value, published and read whole. Read field by field,
// a worker could see a new omit_body beside an old warc_block_level, drop
// a body and add no WARC block in its place: the writer could not store
// the page, and the URL lost an attempt. So the cell holds a WriterWishes,
// a few bytes copied in and out by one lock-free atomic: every Load returns
// what one Set stored, at the cost of a plain load on the per-page path.
//
// Thread-safety: Set and Load from any threads.
#pragma once

#include <atomic>
#include <cstdint>

#include "zcrawl.pb.h"

namespace zcrawl::fetcher {

// v1::WriterWants as a value (zcrawl.proto documents each field).
struct WriterWishes {
  uint32_t warc_block_level = 0;  // 1..12: add WARC blocks at this gzip level; 0: no blocks
  bool omit_body = false;         // leave the body out (beside a block, if blocks are asked for)
  bool payload_digest = false;    // add Page.body_sha1

  static WriterWishes Of(const v1::WriterWants& wants) {
    return {wants.warc_block_level(), wants.omit_body(), wants.payload_digest()};
  }
  friend bool operator==(const WriterWishes&, const WriterWishes&) = default;
};

class WriterWantsCell {
 public:
  void Set(const WriterWishes& wishes) { wishes_.store(wishes, std::memory_order_release); }
  void Set(const v1::WriterWants& wants) { Set(WriterWishes::Of(wants)); }
  // The wishes of one Set (or none yet: all off).
  WriterWishes Load() const { return wishes_.load(std::memory_order_acquire); }

 private:
  // A wish that made the struct too large for one atomic load would make
  // std::atomic take a lock; publish a std::shared_ptr<const WriterWishes>
  // then.
  static_assert(std::atomic<WriterWishes>::is_always_lock_free);
  std::atomic<WriterWishes> wishes_{WriterWishes{}};
};

}  // namespace zcrawl::fetcher

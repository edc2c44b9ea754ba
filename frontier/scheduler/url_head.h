// UrlHead: the in-RAM head of one origin's queue (HostSlot::waiting): a
// FIFO of waiting URLs with push_front for a lease that comes back and
// insert for a requisite that jumps the line.
//
// Packed: one byte buffer of records, each its seq and then the queue
// record's own encoding (queued_url_codec.h: depth, attempts, flags, the
// URL less its origin), ~25 bytes for a typical synthetic URL and a few
// dozen for the web's, where a UrlRecord and its string took ~112-180
// (records of 64 bytes in a vector that doubled and kept its peak
// capacity, plus the string's heap block: at 1.75 x 10^7 URLs in the
// synthetic-web bench the heads held ~270 MB against the 180 MB their
// share of --memory-mb 1200 assumed). The heads' share now holds ~4x the
// URLs, so each refill from disk brings more. bytes() is what the buffer
// holds of RAM, and what the scheduler counts against that share.
//
// Not thread-safe: owned by its HostSlot (the scheduler, broker thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontier/store/url_record.h"

namespace zcrawl::frontier {

class UrlHead {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  // Heap bytes held (the buffer's capacity); 0 when empty.
  size_t bytes() const { return buffer_.capacity(); }

  // `origin` is the slot's: a URL under it is kept without it.
  void push_back(std::string_view origin, const UrlRecord& record);
  void push_front(std::string_view origin, const UrlRecord& record);
  // Puts `record` `index` places behind the front (index <= size()).
  void insert(size_t index, std::string_view origin, const UrlRecord& record);
  // The front record, decoded (its `origin` field set to `slot_index`).
  UrlRecord front(std::string_view origin, uint32_t slot_index) const;
  UrlRecord pop_front(std::string_view origin, uint32_t slot_index);
  // Frees the buffer.
  void clear();

  // Calls visit(UrlRecord&&) for each record, front to back.
  template <typename Visit>
  void ForEach(std::string_view origin, uint32_t slot_index, Visit&& visit) const {
    for (size_t at = read_; at < buffer_.size();) visit(Decode(origin, slot_index, &at));
  }

 private:
  // Decodes the record at *at and moves *at past it.
  UrlRecord Decode(std::string_view origin, uint32_t slot_index, size_t* at) const;
  // The record's bytes (seq, length, value).
  static void Encode(std::string_view origin, const UrlRecord& record, std::string* out);
  // Byte offset of the record `index` places behind the front.
  size_t OffsetOf(size_t index) const;
  // After a pop: drops the popped bytes once they are half the buffer,
  // and gives back capacity the records no longer need.
  void MaybeCompact();

  std::vector<char> buffer_;
  size_t read_ = 0;   // buffer_[0, read_) are popped
  size_t count_ = 0;  // records in buffer_[read_, end)
};

}  // namespace zcrawl::frontier

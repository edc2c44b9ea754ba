#include "frontier/scheduler/url_head.h"

#include <cstdlib>

#include "common/varint.h"
#include "frontier/store/queued_url_codec.h"

namespace zcrawl::frontier {

namespace {

// Popped bytes are dropped once they are at least this many and half the
// buffer: amortised O(1) per pop.
constexpr size_t kCompactAfterBytes = 256;

std::string& Scratch() {
  // One encoding buffer for the broker thread's pushes (no allocation per
  // URL once it has grown); thread_local keeps tests on other threads safe.
  thread_local std::string scratch;
  return scratch;
}

}  // namespace

void UrlHead::Encode(std::string_view origin, const UrlRecord& record, std::string* out) {
  thread_local std::string value;
  value.clear();
  AppendQueuedValue(origin, record.url, record.depth, record.attempts, record.redirect_hops,
                    record.embed_hops, &value);
  out->clear();
  PutVarint(record.seq, out);
  PutVarint(value.size(), out);
  out->append(value);
}

UrlRecord UrlHead::Decode(std::string_view origin, uint32_t slot_index, size_t* at) const {
  const std::string_view bytes(buffer_.data(), buffer_.size());
  uint64_t seq = 0, length = 0;
  QueuedValueView view;
  // The buffer holds only what Encode wrote: a failure here is a bug.
  if (!GetVarint(bytes, at, &seq) || !GetVarint(bytes, at, &length) || length > bytes.size() - *at ||
      !ParseQueuedValue(bytes.substr(*at, length), &view)) {
    std::abort();
  }
  *at += length;
  return UrlRecord{view.Url(origin), slot_index, view.depth, view.attempts, seq, view.redirect_hops,
                   view.embed_hops};
}

size_t UrlHead::OffsetOf(size_t index) const {
  const std::string_view bytes(buffer_.data(), buffer_.size());
  size_t at = read_;
  for (size_t i = 0; i < index; ++i) {
    uint64_t seq = 0, length = 0;
    if (!GetVarint(bytes, &at, &seq) || !GetVarint(bytes, &at, &length)) std::abort();
    at += length;
  }
  return at;
}

void UrlHead::push_back(std::string_view origin, const UrlRecord& record) {
  std::string& encoded = Scratch();
  Encode(origin, record, &encoded);
  buffer_.insert(buffer_.end(), encoded.begin(), encoded.end());
  ++count_;
}

void UrlHead::push_front(std::string_view origin, const UrlRecord& record) {
  std::string& encoded = Scratch();
  Encode(origin, record, &encoded);
  if (read_ >= encoded.size()) {
    read_ -= encoded.size();
    std::copy(encoded.begin(), encoded.end(), buffer_.begin() + static_cast<std::ptrdiff_t>(read_));
  } else {
    buffer_.insert(buffer_.begin() + static_cast<std::ptrdiff_t>(read_), encoded.begin(), encoded.end());
  }
  ++count_;
}

void UrlHead::insert(size_t index, std::string_view origin, const UrlRecord& record) {
  if (index == 0) return push_front(origin, record);
  std::string& encoded = Scratch();
  Encode(origin, record, &encoded);
  const size_t at = OffsetOf(index);
  buffer_.insert(buffer_.begin() + static_cast<std::ptrdiff_t>(at), encoded.begin(), encoded.end());
  ++count_;
}

UrlRecord UrlHead::front(std::string_view origin, uint32_t slot_index) const {
  size_t at = read_;
  return Decode(origin, slot_index, &at);
}

UrlRecord UrlHead::pop_front(std::string_view origin, uint32_t slot_index) {
  UrlRecord record = Decode(origin, slot_index, &read_);
  --count_;
  MaybeCompact();
  return record;
}

void UrlHead::MaybeCompact() {
  if (count_ == 0) return clear();
  if (read_ < kCompactAfterBytes || read_ * 2 < buffer_.size()) return;
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(read_));
  read_ = 0;
  // A head that held many URLs and now holds few gives the rest back (a
  // vector keeps its peak capacity otherwise, the heads' main excess).
  if (buffer_.capacity() > 2 * buffer_.size() + kCompactAfterBytes) buffer_.shrink_to_fit();
}

void UrlHead::clear() {
  std::vector<char>().swap(buffer_);
  read_ = 0;
  count_ = 0;
}

}  // namespace zcrawl::frontier

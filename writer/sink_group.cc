#include "writer/sink_group.h"

#include <spdlog/spdlog.h>

#include <utility>

namespace zcrawl::writer {

SinkGroup::SinkGroup(std::vector<std::unique_ptr<Sink>> sinks) : sinks_(std::move(sinks)) {}

SinkGroup::~SinkGroup() { Close().IgnoreError(); }

uint32_t SinkGroup::all_sinks_mask() const {
  return sinks_.size() >= 32 ? ~uint32_t{0} : (uint32_t{1} << sinks_.size()) - 1;
}

Status SinkGroup::Open() {
  if (sinks_.empty()) return InvalidArgumentError("no sinks");
  if (sinks_.size() > kMaxSinks) {
    return InvalidArgumentError("at most " + std::to_string(kMaxSinks) + " sinks");
  }
  open_ = true;  // so Close closes what opened
  for (auto& sink : sinks_) {
    if (Status s = sink->Open(); !s.ok()) return s;
  }
  uint32_t cannot_tell = 0;
  for (size_t i = 0; i < sinks_.size(); ++i) {
    const uint32_t bit = uint32_t{1} << i;
    size_t listed = 0;
    Status s = sinks_[i]->ForEachStoredKey([&](const std::string& key) {
      durable_[key] |= bit;
      ++listed;
    });
    if (s.code() == StatusCode::kNotFound) {
      cannot_tell |= bit;
      continue;
    }
    if (!s.ok()) return s;
    if (listed > 0) spdlog::info("writer resuming: {} pages already stored by {}", listed, sinks_[i]->name());
  }
  if (cannot_tell != 0) {
    for (auto& [key, mask] : durable_) mask |= cannot_tell;
  }
  return Status::Ok();
}

bool SinkGroup::IsStored(const std::string& key) const {
  const auto it = durable_.find(key);
  return it != durable_.end() && it->second == all_sinks_mask();
}

Status SinkGroup::Write(const std::string& key, const v1::Page& page, bool* wrote) {
  return Write(key, page, CopyPayload(page), wrote);
}

Status SinkGroup::Write(const std::string& key, const v1::Page& page, PagePayload&& payload,
                        bool* wrote) {
  *wrote = false;
  const auto held = durable_.find(key);
  const auto in_flight = sealed_.find(key);
  uint32_t& taken = window_[key];
  const uint32_t has = taken | (held == durable_.end() ? 0 : held->second) |
                       (in_flight == sealed_.end() ? 0 : in_flight->second);
  size_t last = sinks_.size();  // the last sink that needs the page
  for (size_t i = 0; i < sinks_.size(); ++i) {
    if ((has & (uint32_t{1} << i)) == 0) last = i;
  }
  for (size_t i = 0; i < sinks_.size(); ++i) {
    const uint32_t bit = uint32_t{1} << i;
    if ((has & bit) != 0) continue;
    Status s = i == last ? sinks_[i]->Write(page, std::move(payload))
                         : sinks_[i]->Write(page, PagePayload(payload));
    if (!s.ok()) {
      return Status(s.code(), "sink " + std::string(sinks_[i]->name()) + ": " + s.message());
    }
    taken |= bit;
    *wrote = true;
  }
  return Status::Ok();
}

uint32_t SinkGroup::OnEverySink(const std::function<Status(Sink&)>& step, Status& first) {
  uint32_t succeeded = 0;
  for (size_t i = 0; i < sinks_.size(); ++i) {
    Status s = step(*sinks_[i]);
    if (s.ok()) {
      succeeded |= uint32_t{1} << i;
    } else if (first.ok()) {
      first = std::move(s);
    }
  }
  return succeeded;
}

Status SinkGroup::Flush() {
  Status begun = BeginFlush();
  Status finished = FinishFlush();
  return begun.ok() ? finished : begun;
}

Status SinkGroup::BeginFlush() {
  // Misuse (a BeginFlush without FinishFlush) must not lose the window's
  // credit: finish it first.
  if (in_flight_) FinishFlush().IgnoreError();
  in_flight_ = true;
  sealed_error_ = Status::Ok();
  sealed_ok_ = OnEverySink(
      [](Sink& sink) { return sink.pipelined() ? sink.pipelined()->BeginFlush() : sink.Flush(); },
      sealed_error_);
  sealed_.swap(window_);
  window_.clear();
  return sealed_error_;
}

Status SinkGroup::FinishFlush() {
  if (!in_flight_) return Status::Ok();
  in_flight_ = false;
  Status first = std::exchange(sealed_error_, Status::Ok());
  const uint32_t flushed =
      OnEverySink([](Sink& sink) { return sink.pipelined() ? sink.pipelined()->FinishFlush() : Status::Ok(); },
                  first) &
      sealed_ok_;
  for (auto& [key, taken] : sealed_) {
    if ((taken & flushed) != 0) durable_[key] |= taken & flushed;
  }
  sealed_.clear();
  sealed_ok_ = 0;
  return first;
}

bool SinkGroup::FlushesInBackground() const {
  for (const auto& sink : sinks_) {
    if (sink->pipelined() != nullptr) return true;
  }
  return false;
}

bool SinkGroup::FlushReady() {
  for (const auto& sink : sinks_) {
    if (sink->pipelined() != nullptr && !sink->pipelined()->FlushReady()) return false;
  }
  return true;
}

Sink::DedupCounts SinkGroup::dedup_counts() const {
  Sink::DedupCounts total;
  for (const auto& sink : sinks_) {
    const Sink::DedupCounts counts = sink->dedup_counts();
    total.revisits += counts.revisits;
    total.bytes_saved += counts.bytes_saved;
  }
  return total;
}

Status SinkGroup::Close() {
  if (!open_) return Status::Ok();
  if (in_flight_) FinishFlush().IgnoreError();
  open_ = false;
  Status first = Status::Ok();
  OnEverySink([](Sink& sink) { return sink.Close(); }, first);
  return first;
}

std::string SinkGroup::names() const {
  std::string out;
  for (const auto& sink : sinks_) out += (out.empty() ? "" : ",") + std::string(sink->name());
  return out;
}

v1::WriterWants SinkGroup::Wants() const {
  v1::WriterWants wants;
  bool bodies_needed = false;
  for (const auto& sink : sinks_) {
    const SinkNeeds needs = sink->needs();
    wants.MergeFrom(needs.wants);
    bodies_needed |= needs.body;
  }
  wants.set_omit_body(!bodies_needed);
  return wants;
}

size_t SinkGroup::stored_pages() const {
  size_t n = 0;
  for (const auto& [key, mask] : durable_) n += mask == all_sinks_mask() ? 1 : 0;
  return n;
}

}  // namespace zcrawl::writer

// SinkGroup: the writer's sinks (--format warc,jsonl,...) handled as one.
// It writes each page to every sink that does not durably hold it yet,
// flushes them together (group commit), and remembers per dedup key which
// sinks hold the page durably. A page counts as stored once every sink
// holds it.
//
// Why per sink: with several sinks a page can reach one and not another
// (sink B's Write or Flush fails after sink A took the page). The page is
// not acknowledged and comes again; writing it then only to the sinks that
// lack it keeps A from storing it twice. A sink whose Flush fails gets no
// credit for any page of that window, so it is given them all again.
//
// Restarts: Open asks each sink what it durably holds from earlier runs
// (Sink::ForEachStoredKey). A sink that cannot tell (NotFound, e.g. exec)
// is taken to hold whatever the sinks that can tell hold, so a page stored
// everywhere before is not sent to it again; when no sink can tell, nothing
// is known to be stored.
//
// Pipelined group commit (sink.h): BeginFlush ends the window in every sink
// (a sink without PipelinedFlush flushes in full there) and FinishFlush
// credits it once each sink made it durable; pages written
// in between form the next window. A page in the window in flight counts as
// taken by its sinks, so a copy arriving meanwhile is not written again; if
// that window then fails, the copy is not acknowledged as stored either and
// comes back once more.
//
// Memory: one entry (key + sink bit mask) per stored page, as a set of the
// keys would take. At most kMaxSinks sinks.
//
// Thread-safety: none; the writer's one sink thread owns the group and,
// through it, the sinks (sink.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "writer/sink.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

inline constexpr size_t kMaxSinks = 32;

class SinkGroup {
 public:
  explicit SinkGroup(std::vector<std::unique_ptr<Sink>> sinks);
  ~SinkGroup();  // Close(), error ignored
  SinkGroup(const SinkGroup&) = delete;
  SinkGroup& operator=(const SinkGroup&) = delete;

  // Opens every sink and learns what each durably holds. InvalidArgument
  // for no sinks or more than kMaxSinks; otherwise the first sink error.
  Status Open();
  // True once every sink durably holds the page with this dedup key.
  bool IsStored(const std::string& key) const;
  // Writes `page` to each sink that neither holds `key` durably nor took it
  // since the last Flush; *wrote says whether any sink needed it. Stops at
  // the first failing sink and returns its error (message prefixed with
  // "sink NAME: "); the sinks written before
  // it keep the page (it becomes theirs at the next successful Flush).
  // The page's bulk is `payload` (page_payload.h): the last sink that needs
  // the page gets it moved, the others a copy.
  Status Write(const std::string& key, const v1::Page& page, PagePayload&& payload, bool* wrote);
  // The same, copying the bulk from `page`.
  Status Write(const std::string& key, const v1::Page& page, bool* wrote);
  // Flushes every sink, even after one fails; the pages each successful
  // sink took since the last Flush become durably its own. Returns the
  // first failure. Same as BeginFlush then FinishFlush.
  Status Flush();
  // Ends the window in every sink (Sink::BeginFlush), even after one fails.
  // Returns the first failure; the window's result is FinishFlush's.
  Status BeginFlush();
  // Waits for every sink's window; the pages each sink took in it become
  // durably its own where both its BeginFlush and FinishFlush succeeded.
  // Returns the first failure of either step.
  Status FinishFlush();
  // Whether any sink flushes in the background (Sink::pipelined).
  bool FlushesInBackground() const;
  // Without waiting: true when FinishFlush would not block.
  bool FlushReady();
  // Closes every sink; the first failure. Idempotent.
  Status Close();
  // Sink::dedup_counts summed over the sinks.
  Sink::DedupCounts dedup_counts() const;

  // "warc,jsonl".
  std::string names() const;
  // What the sinks ask of the fetchers (Sink::needs), together; bodies may
  // be omitted when no sink reads them (the WARC sink does not while it
  // asks for blocks).
  v1::WriterWants Wants() const;
  // Keys stored by every sink.
  size_t stored_pages() const;

 private:
  uint32_t all_sinks_mask() const;
  // Runs `step` on every sink, even after one fails; returns the mask of
  // those that succeeded and keeps the first failure in `first` (unless it
  // already holds one).
  uint32_t OnEverySink(const std::function<Status(Sink&)>& step, Status& first);

  std::vector<std::unique_ptr<Sink>> sinks_;
  bool open_ = false;
  // Key -> bit i set when sinks_[i] holds the page durably.
  std::unordered_map<std::string, uint32_t> durable_;
  // Key -> bit i set when sinks_[i] took the page since the last Flush.
  std::unordered_map<std::string, uint32_t> window_;
  // The window between BeginFlush and FinishFlush, and its first error.
  std::unordered_map<std::string, uint32_t> sealed_;
  uint32_t sealed_ok_ = 0;  // bit i: sinks_[i]'s BeginFlush succeeded
  bool in_flight_ = false;  // between BeginFlush and FinishFlush
  Status sealed_error_;
};

}  // namespace zcrawl::writer

// Sink: where the writer puts pages. One implementation per destination
// (files, jsonl, warc, exec), picked by name through sink_registry.h.
//
// A new sink implements five methods: Open, Append (one page), Flush (make
// what was appended durable), Close, and name. Everything else is optional
// and has a default: what it needs from fetchers (needs(); by default the
// page with its body), what it holds from earlier runs (ForEachStoredKey;
// by default "cannot tell"), and pipelined flushing (pipelined(); by
// default none).
//
// Contract: the writer calls every method from its one sink thread, never
// concurrently, in the order Open, (Write* Flush)*, Close. A page passed to
// Write is not yet safe; it is durable only once the next Flush returns OK,
// and only then does the writer acknowledge it. A Write or Flush error means
// the pages since the last successful Flush are not acknowledged (their
// fetchers report them as failed and the frontier retries them), so a sink
// must tolerate seeing the same page again after a failed Flush.
//
// A sink that writes files keeps them through DurableFile (durable_file.h):
// the sink is the format, DurableFile the destination's durable prefix, cut
// back to on failure; what a crash leaves past it, the sink recovers at its
// next Open, so that no page is in its files twice.
//
// The page's bulk comes apart from it (page_payload.h): an implementation
// reads the body and the WARC blocks' bytes from the PagePayload, which is
// its own to keep, and everything else from the page, which it must not
// keep a reference to past the call.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "writer/page_payload.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

// What a sink needs from the fetchers, apart from how it writes.
struct SinkNeeds {
  // It reads page bodies. When no sink does (the WARC sink with the blocks
  // it asks for), the writer lets fetchers leave bodies out
  // (WriterWants.omit_body). A body that comes omitted anyway is restored
  // before any sink sees the page (or the page refused), so a sink that
  // says true always gets it.
  bool body = true;
  // What to add to every page (sent to fetchers in Heartbeat.writer_wants).
  v1::WriterWants wants;
};

// Optional pipelined group commit, for a sink that can keep the disk busy
// with one window while it encodes the next (WARC). Instead of Flush the
// writer calls BeginFlush, then writes the next pages, then FinishFlush.
// BeginFlush closes the window (the pages written so far) and starts making
// it durable; FinishFlush waits until it is. The window is durable only
// when both returned OK. Pages written in between belong to the next
// window. At most one window is in flight: BeginFlush always comes after
// the previous FinishFlush.
class PipelinedFlush {
 public:
  virtual ~PipelinedFlush() = default;
  virtual Status BeginFlush() = 0;
  virtual Status FinishFlush() = 0;
  // Without waiting: true when FinishFlush would not block.
  virtual bool FlushReady() = 0;
};

class Sink {
 public:
  virtual ~Sink() = default;

  // Creates or reopens the destination (appending to what is there).
  virtual Status Open() = 0;
  // Appends one page record, its bulk handed over. Buffered; not durable yet.
  Status Write(const v1::Page& page, PagePayload&& payload) { return Append(page, std::move(payload)); }
  // The same for a caller that keeps the page: the bulk is copied.
  Status Write(const v1::Page& page) { return Append(page, CopyPayload(page)); }
  // Flushes and fsyncs everything written so far.
  virtual Status Flush() = 0;
  // Flushes and releases the destination. Idempotent.
  virtual Status Close() = 0;
  // The name used in --format, e.g. "files".
  virtual std::string_view name() const = 0;

  // Optional.
  virtual SinkNeeds needs() const { return {}; }
  // Calls `visit` with the dedup key (the leased URL) of every page this
  // sink durably holds from earlier runs, so a restarted writer never
  // stores a page twice. Called after Open. NotFound: this sink cannot tell.
  virtual Status ForEachStoredKey(const std::function<void(const std::string&)>& visit) {
    return NotFoundError(std::string(name()) + " sink cannot list stored pages");
  }
  // The sink's pipelined flush, or null: Flush is all it has.
  virtual PipelinedFlush* pipelined() { return nullptr; }
  // Pages stored as revisits (durably) and the payload bytes they did not
  // store again; zero for sinks that store everything whole.
  struct DedupCounts {
    uint64_t revisits = 0;
    uint64_t bytes_saved = 0;
  };
  virtual DedupCounts dedup_counts() const { return {}; }

 protected:
  // Write's implementation: `page.body()` and the blocks' `deflate` fields
  // may be empty (moved into `payload`); read those from `payload`.
  virtual Status Append(const v1::Page& page, PagePayload&& payload) = 0;
};

}  // namespace zcrawl::writer

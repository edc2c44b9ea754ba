// Sink: where the writer puts pages. One implementation per storage format
// (files, jsonl, warc, exec), picked by name through sink_registry.h.
//
// Contract: the writer calls every method from its one sink thread, never
// concurrently, in the order Open, (Write* Flush)*, Close. A page passed to
// Write is not yet safe; it is durable only once the next Flush returns OK,
// and only then does the writer acknowledge it. A Write or Flush error means
// the pages since the last successful Flush are not acknowledged (their
// fetchers report them as failed and the frontier retries them), so a sink
// must tolerate seeing the same page again after a failed Flush.
//
// Pipelined group commit: instead of Flush, the writer may call BeginFlush,
// then Write the next pages, then FinishFlush. BeginFlush closes the window
// (the pages written so far) and starts making it durable; FinishFlush waits
// until it is. The window is durable only when both returned OK. Pages
// written in between belong to the next window. At most one window is in
// flight: BeginFlush always comes after the previous FinishFlush. A sink
// that can keep the disk busy with one window while it encodes the next
// overrides both (WARC); by default BeginFlush is the whole Flush and
// FinishFlush has nothing left to wait for.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

class Sink {
 public:
  virtual ~Sink() = default;

  // Creates or reopens the destination (appending to what is there).
  virtual Status Open() = 0;
  // Appends one page record. Buffered; not durable yet.
  virtual Status Write(const v1::Page& page) = 0;
  // Write, from a caller that gives the page up: a sink that keeps the body
  // past the call (WARC hands it to its encoding threads) moves it out
  // instead of copying it. Afterwards the page's body is unspecified; every
  // other field is left as it was.
  virtual Status WriteOwned(v1::Page&& page) { return Write(page); }
  // Flushes and fsyncs everything written so far.
  virtual Status Flush() = 0;
  // Ends the window and starts making it durable (see above).
  virtual Status BeginFlush() { return Flush(); }
  // Waits until the window BeginFlush ended is durable; its outcome.
  virtual Status FinishFlush() { return Status::Ok(); }
  // Whether BeginFlush leaves work in flight at all (false: it is done when
  // it returns, so the writer acknowledges at once).
  virtual bool FlushesInBackground() const { return false; }
  // Without waiting: true when FinishFlush would not block.
  virtual bool FlushReady() { return true; }
  // Flushes and releases the destination. Idempotent.
  virtual Status Close() = 0;
  // Adds what this sink asks the fetchers to send with each page beyond the
  // page itself (answers to fetchers carry it in Heartbeat.writer_wants).
  virtual void AddWants(v1::WriterWants& wants) const {}
  // Whether this sink reads pages' bodies. When no sink does (the WARC sink
  // only needs the response block it asks for), the writer lets fetchers
  // leave bodies out (WriterWants.omit_body). A body that comes omitted
  // anyway is restored before any sink sees the page (or the page refused),
  // so a sink that says true always gets it.
  virtual bool NeedsBody() const { return true; }
  // The name used in --format, e.g. "files".
  virtual std::string_view name() const = 0;
  // Calls `visit` with the dedup key (the leased URL) of every page this
  // sink durably holds from earlier runs, so a restarted writer never
  // stores a page twice. Called after Open. NotFound: this sink cannot tell.
  virtual Status ForEachStoredKey(const std::function<void(const std::string&)>& visit) {
    return NotFoundError(std::string(name()) + " sink cannot list stored pages");
  }
};

}  // namespace zcrawl::writer

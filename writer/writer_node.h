// WriterNode: the writer process's loop. Many fetchers send pages to one
// ROUTER socket (ZeroMQ queues them fairly: the many-to-one hand-off); the
// node writes each new page to every sink, then flushes the sinks once for
// the whole batch (group commit) and only then acknowledges each page to its
// fetcher. A page whose URL was already stored is acknowledged as a
// duplicate without writing it again. With several sinks, a page that some
// of them already hold goes only to the others (sink_group.h).
//
// Pipelined group commit (sink.h): once a batch is written the node starts
// its flush (BeginFlush) and goes back to the socket; it takes and writes the
// next batch while the disk syncs, and acknowledges the synced batch as soon
// as its flush is over (checked after every message; when the socket is
// empty it waits for it), then starts the next flush. Sinks that cannot
// flush in the background (files, jsonl, exec) are acknowledged right after
// their flush, as before.
//
// Out of space: when a sink fails with ResourceExhausted (ENOSPC, EDQUOT,
// EMFILE: file_io.h), the node waits for space. It acknowledges nothing it
// could not make durable (a failed window is cut back by its sinks), so the
// fetchers keep those pages and send them again after their ack timeout;
// meanwhile it writes one page a second as a probe and drops the others
// unacknowledged (counted as deferred), and the first probe made durable
// ends the wait. The frontier learns it from every heartbeat (WriterState)
// and hands out no work and lets no lease expire meanwhile, so nothing is
// lost and nothing fails; the log says so once, at each end of the wait.
//
// Back-pressure: the node takes at most max_batch_pages before flushing, and
// holds at most two batches (one written, one syncing); fetchers hold each
// page until its ack and ask for no new work meanwhile, so a slow disk slows
// the crawl instead of filling memory.
//
// Runs on one thread, the owner of both sockets and the sinks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "common/clock.h"
#include "common/counter_registry.h"
#include "common/free_space.h"
#include "common/metrics_server.h"
#include "common/status.h"
#include "net/envelope_codec.h"
#include "net/peer_link.h"
#include "net/zap_authenticator.h"
#include "net/zmq_io.h"
#include "writer/sink.h"
#include "writer/sink_group.h"
#include "writer/writer_options.h"

namespace zcrawl::writer {

// While out of space, one page is tried this often.
inline constexpr int64_t kSpaceProbeMs = 1000;

struct WriterCounters {
  uint64_t pages_stored = 0;
  uint64_t duplicates = 0;
  uint64_t bytes_stored = 0;
  uint64_t write_errors = 0;
  uint64_t flushes = 0;
  uint64_t malformed_messages = 0;
  // Pages written that carried Page.warc_response (their fetcher compressed
  // the WARC block because this writer asked for it).
  uint64_t fetcher_warc_blocks = 0;
  // Pages that came without their body (WriterWants.omit_body) ...
  uint64_t bodies_omitted = 0;
  // ... and of those, the ones a sink needed after all: inflated from the
  // block (omission asked by an earlier configuration).
  uint64_t bodies_restored = 0;
  // Times the frontier went silent past liveness x heartbeat.
  uint64_t frontier_lost = 0;
  // Out of space: times a wait began, and pages not taken meanwhile (their
  // fetchers send them again).
  uint64_t space_waits = 0;
  uint64_t pages_deferred = 0;
};

class WriterNode {
 public:
  WriterNode(const WriterOptions& options, zmq::context_t& context, const Clock& clock,
             std::vector<std::unique_ptr<Sink>> sinks);
  ~WriterNode();
  WriterNode(const WriterNode&) = delete;
  WriterNode& operator=(const WriterNode&) = delete;

  Status Start();
  // Until the frontier says the crawl is over, or a signal arrives.
  Status Run();
  // One turn of Run's loop: waits up to `max_wait_ms` for messages, takes
  // and writes them, acknowledges what is durable, keeps the frontier link.
  // Sets *done when Run would return (Run's result is then closed()). For
  // tests that drive the writer with a fake clock.
  Status Step(int max_wait_ms, bool* done);
  const Status& closed() const { return closed_; }

  const WriterCounters& counters() const { return counters_; }
  // Every count the summary, the metrics and the status reply export.
  const CounterRegistry& counter_registry() const { return registry_; }

 private:
  struct PendingAck {
    std::string identity;
    std::string page_id;
    std::string dedup_key;
    bool duplicate = false;  // rides on a copy written earlier in the batch
    bool probe = false;      // written while waiting for space: durable means room again
  };

  void HandleFetcherMessage(const std::string& identity, std::string_view payload);
  // Takes the page: the sinks may move its body out.
  void HandlePage(const std::string& identity, v1::Page&& page);
  // Whether the sinks can store `page` as it came, without its body.
  bool CanStoreWithoutBody(const v1::Page& page) const;
  void HandleFrontierMessage(std::string_view payload);
  // Takes the frontier's messages, heartbeats it when idle, and declares it
  // lost (and reconnects) after liveness x heartbeat of silence.
  void MaintainFrontierLink(InboundMessage& message);
  // Starts the flush of pending_ (which becomes in_flight_).
  void BeginFlush();
  // Waits for the flush in flight and acknowledges its pages.
  Status FinishFlushAndAcknowledge();
  // Both, for the last batch.
  Status FlushAndAcknowledge();
  void Ack(const std::string& identity, const std::string& page_id, bool stored, bool duplicate,
           const std::string& error);
  void Send(const std::string& identity, v1::Envelope& envelope);
  void SayReadyToFrontier();
  // The frontier's heartbeat, with this writer's state.
  v1::Envelope FrontierHeartbeat() const;
  // Out of space (`cause`: ResourceExhausted): begins the wait, once.
  void WaitForSpace(const Status& cause);
  // A page was made durable while waiting: the wait is over.
  void SpaceIsBack();
  // While waiting: whether `page` is to be left to its fetcher's resend
  // rather than tried now (one probe a second).
  bool DeferWhileWaiting();
  Status CloseSinks();
  void PublishMetrics();

  const WriterOptions& options_;
  zmq::context_t& context_;
  const Clock& clock_;
  EnvelopeCodec codec_;
  SinkGroup sinks_;
  // --summary-file at exit (WriterOptions::summary_file).
  void WriteSummary() const;
  // Defines every count in registry_, once: the summary, the metrics and
  // the status reply read them there.
  void DefineCounters();
  v1::WriterWants wants_;  // in every answer to a fetcher
  std::unique_ptr<ZapAuthenticator> zap_;
  zmq::socket_t socket_;    // ROUTER for fetchers
  // To the frontier, only when options_.frontier is set: heartbeats both
  // ways; a frontier silent for liveness x heartbeat is declared lost and
  // reconnected to (net/peer_link.h).
  std::unique_ptr<PeerLink> frontier_;
  bool frontier_lost_ = false;  // said once per loss
  FreeSpaceGuard output_space_;    // the output's free-space floor
  std::string waiting_for_space_;  // why, while out of space; empty otherwise
  int64_t waiting_since_ms_ = 0;
  int64_t next_space_probe_ms_ = 0;
  Status closed_;               // the sinks' Close, once done

  std::vector<PendingAck> pending_;    // written since the last BeginFlush
  std::vector<PendingAck> in_flight_;  // the batch being flushed
  bool flush_in_flight_ = false;
  Status begin_status_;                // BeginFlush's outcome for in_flight_
  bool shutdown_received_ = false;
  WriterCounters counters_;
  CounterRegistry registry_;
  std::unique_ptr<MetricsServer> metrics_;
  int64_t last_metrics_ms_ = 0;
};

}  // namespace zcrawl::writer

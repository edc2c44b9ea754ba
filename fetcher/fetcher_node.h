// FetcherNode: the fetcher process's main loop. It owns the two DEALER links
// (frontier and writer), the worker ThreadPool and, with --io multi, the
// fetch event loop (CurlMultiLoop), and moves each leased URL through its
// stages:
//
//   WorkBatch -> fetched (on the loop, or by a worker with --io blocking)
//     -> parsed by a worker -> Page to writer -> PageAck (durable)
//     -> FetchReport to frontier -> forgotten
//
// (URLs with nothing to store skip the writer.) Work is pulled by credit:
// the node asks for as many URLs as it has free capacity (threads +
// prefetch minus URLs held in any stage), so a slow writer slows fetching
// instead of piling pages up in memory. At most `threads + prefetch` pages
// are held, each at most max_body_bytes plus its text.
//
// Runs on one thread (the sockets' owner); workers hand results back through
// a NotifyingQueue polled next to the sockets. While the fetch loop is full
// and URLs wait for a slot, Run spaces its turns by --turn-gap-ms so that
// what finished in between travels together (turn_pacer.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
#include <zmq.hpp>

#include "common/clock.h"
#include "common/notifying_queue.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "fetcher/curl_multi_loop.h"
#include "fetcher/fetcher_options.h"
#include "fetcher/html_parser_pool.h"
#include "fetcher/page_processor.h"
#include "fetcher/turn_pacer.h"
#include "net/envelope_codec.h"
#include "net/peer_link.h"

namespace zcrawl::fetcher {

struct FetcherCounters {
  uint64_t fetched = 0;
  uint64_t pages_stored = 0;
  uint64_t writer_failures = 0;
  uint64_t worker_failures = 0;
  uint64_t malformed_messages = 0;
  uint64_t sitemaps_cut = 0;         // past 50,000 URLs or 50 MiB
  uint64_t sitemap_gzip_errors = 0;  // gzip bodies that did not inflate
};

class FetcherNode {
 public:
  FetcherNode(const FetcherOptions& options, zmq::context_t& context, const Clock& clock);
  ~FetcherNode();
  FetcherNode(const FetcherNode&) = delete;
  FetcherNode& operator=(const FetcherNode&) = delete;

  Status Start();
  // Returns when the frontier announces the end of the crawl (and
  // exit_on_shutdown) or a shutdown signal arrives.
  Status Run();
  // One turn of Run: waits up to max_wait_ms for a message or a worker's
  // result, handles what arrived, then reports, heartbeats, resends and
  // asks for work as due. *done once Run would return Ok. Unit tests drive
  // the node with it and a FakeClock (tests/fetcher/fetcher_node_test.cc).
  Status Step(int max_wait_ms, bool* done);

  const FetcherCounters& counters() const { return counters_; }
  const std::string& sender_id() const { return codec_.sender_id(); }

 private:
  struct Held {
    v1::WorkItem item;
    bool at_writer = false;
    int64_t sent_to_writer_ms = 0;
    FetchOutcome outcome;  // valid once fetched
  };

  void HandleFrontier(const v1::Envelope& envelope);
  void HandleWriter(const v1::Envelope& envelope);
  void HandleOutcome(FetchOutcome outcome);
  void HandleAck(const v1::PageAck& ack);
  // Queues a report; FlushReports sends everything queued in one message
  // at the end of each turn of the loop.
  void SendReport(v1::FetchReport report);
  void FlushReports();
  void SendPageToWriter(Held& held);
  void ResendPendingPages(const char* why);
  void RequestWork();
  void SayReady(PeerLink& link);
  void Maintain();
  void SayGoodbye(const std::string& reason);
  v1::Envelope HeartbeatEnvelope() const;
  // Fetches and processes one leased URL, on the pool (blocking I/O) or
  // through the event loop and then the pool.
  void StartItem(const v1::WorkItem& item);
  void FailItem(uint64_t lease_id, std::string reason);
  bool event_loop() const;
  void StopWork();
  // Before a turn of Run: waits while the pacer says finished work should
  // gather (turn_pacer.h).
  void PaceTurn();

  const FetcherOptions& options_;
  zmq::context_t& context_;
  const Clock& clock_;
  EnvelopeCodec codec_;
  std::unique_ptr<PeerLink> frontier_;
  std::unique_ptr<PeerLink> writer_;
  // What the pool's tasks use, owned by the node and by every task: the
  // watchdog abandons a hung task (stuck in libcurl or a parser), which
  // may then finish after the node is gone and must find all it touches
  // alive. Tasks capture this, never the node.
  struct WorkerShared {
    explicit WorkerShared(const FetcherOptions& o, const Clock& c, std::string id)
        : options(WithAddressGuard(o)), clock(c), sender_id(std::move(id)) {}
    // A copy, with a fresh guard over the addresses every transfer connects
    // to (filled from the frontier's NetworkPolicy).
    const FetcherOptions options;
    const Clock& clock;            // the process's; outlives every task
    const std::string sender_id;
    // Lent to the workers for each parse (html_parser_pool.h).
    std::shared_ptr<HtmlParserPool> parsers;
    // What the writer last asked for with each page; written by the node,
    // read by the workers, once per page (writer_wants_cell.h).
    WriterWantsCell writer_wants;
    NotifyingQueue<FetchOutcome> outcomes;  // workers -> the main loop
  };
  static FetcherOptions WithAddressGuard(FetcherOptions options);
  // The calling worker thread's own processor, over `shared`.
  static PageProcessor& ThreadProcessor(const std::shared_ptr<WorkerShared>& shared);

  std::shared_ptr<WorkerShared> shared_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<CurlMultiLoop> loop_;  // --io multi only

  std::unordered_map<uint64_t, Held> held_;  // by lease id
  std::vector<v1::FetchReport> pending_reports_;  // sent by FlushReports
  std::vector<FetchOutcome> outcomes_;            // Step's buffer, kept for its capacity
  uint32_t outstanding_credit_ = 0;          // asked for, not yet received
  uint32_t threads_ = 0;                     // URLs fetched at once; an operator may change it
  std::string writer_sender_id_;             // changes when the writer restarts
  bool shutdown_received_ = false;
  // When the frontier said shutdown. Work still held after a liveness
  // window is given up: the crawl is over or the frontier gone, so no one
  // will take its report (a stale lease the frontier already gave away, or
  // a page whose writer left first).
  int64_t shutdown_received_ms_ = 0;
  FetcherCounters counters_;
  TurnPacer pacer_;
};

}  // namespace zcrawl::fetcher

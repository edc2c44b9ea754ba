// FakeFetcher: one fetcher of frontier_scale_bench, speaking the fetcher
// side of docs/PROTOCOL.md 3.1 and 5 to a real frontier, with no writer and
// no network: every leased URL is answered at once with a FetchReport
// (FETCH_STATUS_OK, HTTP 200, the lease id and URL echoed) carrying the
// page's links in the SyntheticWeb. The reports of one turn of its loop
// travel in one FetchReportBatch, and it keeps `credit` URLs of credit open
// so that the frontier, not the fetchers, is what limits the rate.
//
// It joins with Ready, heartbeats when it sent nothing for an interval,
// answers Reject with Ready (its open credit then forgotten), answers a
// robots_only item with "no robots.txt" and a URL the synthetic web does
// not know with a 404, ignores anything else, and leaves with Goodbye on
// Stop() or after the frontier's Shutdown. A send the socket refuses
// (high-water mark) is kept and retried, so no report is dropped.
//
// A frontier that restarts on the same endpoint (frontier_scale_bench
// --kill-resume) is joined again: ZeroMQ reconnects the socket by itself,
// the new frontier answers our next heartbeat with Reject (it does not know
// us) and we say Ready. A frontier silent for `liveness` heartbeat
// intervals is taken for dead and we say Ready at once; it waits in the
// socket until a frontier binds there. Unlike zcrawl-fetcher it keeps its
// socket: on loopback nothing is gained by a new one, and a frontier that
// was only slow still gets the reports queued in it. Frontier runs are told
// apart by their sender id (MakeRunId), which the counters use to time the
// first WorkBatch of each.
//
// Owns one thread and its DEALER socket (routing id = sender id = name).
// Start/Stop from one thread; counters() may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "bench/frontier_scale/synthetic_web.h"

namespace zcrawl::bench {

struct FakeFetcherOptions {
  std::string endpoint;         // the frontier's ROUTER
  std::string name;             // routing id and sender id, unique per run
  uint32_t credit = 256;        // URLs of credit kept open at the frontier
  int64_t heartbeat_ms = 1000;  // the frontier's --heartbeat-ms
  uint32_t liveness = 5;        // silent intervals before the frontier is taken for dead
  uint32_t max_reports_per_message = 512;
  // Each report names the server address of its host, as a real fetcher's
  // does (FetchReport.server_address): hosts h, h+1, ... share one address
  // this many at a time, so the frontier's per-address budgets (--per-ip)
  // run at scale. 0: no address reported.
  uint32_t hosts_per_address = 0;
};

// Written by the fetcher's thread, read by anyone (relaxed: figures only).
struct FakeFetcherCounters {
  std::atomic<uint64_t> leases{0};         // work items received
  std::atomic<uint64_t> reports{0};        // reports handed to the socket
  std::atomic<uint64_t> links{0};          // links in those reports
  std::atomic<uint64_t> unknown_urls{0};   // leased URLs not of the synthetic web (404)
  std::atomic<uint64_t> robots_items{0};   // robots_only items (none with --no-robots)
  std::atomic<uint64_t> malformed{0};      // frames that did not decode
  std::atomic<uint64_t> rejects{0};        // Reject received
  std::atomic<uint64_t> send_retries{0};   // sends refused by the socket, retried
  std::atomic<uint64_t> silences{0};       // times the frontier went silent (then Ready again)
  std::atomic<bool> told_shutdown{false};  // the frontier sent Shutdown
  // Frontier runs heard from (a new sender id is a new run), and when the
  // first WorkBatch of the latest one came (FakeFetcher::NowNs(); 0: none
  // yet). A new run resets the time before it is counted.
  std::atomic<uint32_t> frontier_runs{0};
  std::atomic<int64_t> run_first_work_ns{0};
};

class FakeFetcher {
 public:
  FakeFetcher(zmq::context_t& context, const SyntheticWeb& web, FakeFetcherOptions options);
  ~FakeFetcher();
  FakeFetcher(const FakeFetcher&) = delete;
  FakeFetcher& operator=(const FakeFetcher&) = delete;

  // The clock of run_first_work_ns: steady_clock, nanoseconds.
  static int64_t NowNs();

  void Start();
  // Says Goodbye and joins the thread.
  void Stop();

  const FakeFetcherCounters& counters() const { return counters_; }
  const std::string& error() const { return error_; }  // set if the socket could not be made

 private:
  void Run();

  zmq::context_t& context_;
  const SyntheticWeb& web_;
  const FakeFetcherOptions options_;
  FakeFetcherCounters counters_;
  std::atomic<bool> stop_{false};
  std::string error_;  // written by the thread before it ends, read after Stop
  std::thread thread_;
};

}  // namespace zcrawl::bench

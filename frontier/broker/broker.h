// Broker: the frontier's main loop, and the coordinator of its parts. Owns
// the ROUTER socket that fetchers, the writer and status tools talk to, and
// wires what each message means to the part that keeps it:
//   PeerTable       who is connected, and who is lost (heartbeats)
//   CrawlScheduler  the queues, leases, retries and politeness
//   LinkAdmitter    reported links through the scope and the seen set
//   MemoryBalancer  RAM within --memory-mb across the parts
//   CounterRegistry every count, once, for the summary, metrics and status
// and decides the end of the crawl (nothing waiting, nothing leased, no
// links being admitted). broker.cc routes; broker_dispatch.cc hands work
// to fetchers; broker_control.cc applies the operator's controls;
// broker_state.cc records,
// broker_reports.cc defines the counts, broker_refetch.cc and
// broker_recrawl.cc are a continuous crawl's and a recrawl's inputs.
//
// Runs on one thread (the socket's owner). Everything it shares with other
// threads goes through LinkAdmitter (jobs in, results via eventfd).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "common/clock.h"
#include "common/crawl_beacon.h"
#include "common/counter_registry.h"
#include "common/free_space.h"
#include "common/heap_stats.h"
#include "common/metrics_server.h"
#include "common/status.h"
#include "frontier/admission/admission_limits.h"
#include "frontier/console/console_history.h"
#include "frontier/console/console_server.h"
#include "frontier/control/crawl_controls.h"
#include "frontier/scheduler/crawl_scheduler.h"
#include "frontier/frontier_options.h"
#include "frontier/seen/known_url_cache.h"
#include "frontier/admission/link_admitter.h"
#include "frontier/broker/memory_balancer.h"
#include "frontier/broker/memory_budget.h"
#include "frontier/broker/peer_table.h"
#include "frontier/scheduler/refetch_schedule.h"
#include "frontier/admission/scope_policy.h"
#include "frontier/seen/seen_set.h"
#include "frontier/broker/space_wait.h"
#include "frontier/store/url_store.h"
#include "net/envelope_codec.h"
#include "net/zap_authenticator.h"

namespace zcrawl::frontier {

struct BrokerCounters {
  uint64_t malformed_messages = 0;
  uint64_t reports = 0;
  uint64_t stale_reports = 0;
  uint64_t links_reported = 0;
  uint64_t links_invalid = 0;
  uint64_t links_out_of_scope = 0;
  uint64_t links_duplicate = 0;
  uint64_t links_over_limit = 0;
  // Trap guards' refusals by reason: of links_out_of_scope (ScopePolicy)
  // and of links_over_limit (query_variants).
  uint64_t links_url_length = 0;
  uint64_t links_path_repeat = 0;
  uint64_t links_canonicalized = 0;
  uint64_t links_query_params = 0;
  uint64_t links_query_variants = 0;
  // New links an operator's block refused, and those refused while the
  // crawl drains (broker_control.cc).
  uint64_t links_blocked = 0;
  uint64_t links_draining = 0;
  uint64_t admitted = 0;
  uint64_t bytes_fetched = 0;  // body bytes the reports say were fetched
  uint64_t console_snapshots = 0;  // built for the web console
  uint64_t peers_joined = 0;    // READY from a connection the frontier did not know (writers too)
  uint64_t peers_rejoined = 0;  // READY from a fetcher it knew: reconnected before declared lost
  uint64_t peers_lost = 0;
  uint64_t sends_failed = 0;   // envelopes that could not be sent (peer gone, queue full)
  uint64_t leases_unsent = 0;  // leases of those, returned at once
  uint64_t leases_not_held = 0;  // returned when their fetcher rejoined without them
  uint64_t own_stalls = 0;       // times the frontier itself did not run for long (SIGSTOP, swap)
  // A continuous crawl: done URLs put back in their queues when due, and
  // how their fetches compared with the capture before (first captures
  // count as changed); due ones the scope now refuses leave the schedule.
  uint64_t refetches_queued = 0;
  uint64_t refetches_changed = 0;
  uint64_t refetches_unchanged = 0;
  uint64_t refetches_failed = 0;  // looked at again after the longest interval
  uint64_t refetches_out_of_scope = 0;
  uint64_t refetch_errors = 0;  // schedule scans that failed (retried)
};

class Broker {
 public:
  Broker(const FrontierOptions& options, zmq::context_t& context, const Clock& clock);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // Validates seeds, binds the socket, admits the seeds.
  Status Start();
  // Serves until the crawl is finished and peers were told, or a shutdown
  // signal arrives. OK in both cases.
  Status Run();
  // One turn of Run's loop: waits for a message up to `max_wait_ms` (or
  // less when a lease or a heartbeat is due), handles what arrived, then
  // maintains peers, dispatches and commits. Sets *done when Run would
  // return. For tests that drive the broker with a fake clock.
  Status Step(int max_wait_ms, bool* done);

  bool finished() const { return finished_; }
  // True when the state folder held a crawl that had already finished.
  bool already_finished() const { return already_finished_; }
  const CrawlScheduler& scheduler() const { return *scheduler_; }
  const BrokerCounters& counters() const { return counters_; }
  const KnownUrlCache& known_urls() const { return known_; }
  SeenSetCounters seen_counters() const { return seen_->counters(); }
  uint64_t store_cache_capacity() const { return store_->cache_capacity(); }
  // Where MemoryBalancer reads the heap (ReadHeapStats; tests give figures).
  void set_heap_reader(MemoryBalancer::HeapReader reader) { memory_.set_heap_reader(std::move(reader)); }
  // Every count the summary, the metrics and the status reply export
  // (defined once each in broker_reports.cc; filled in by Start).
  const CounterRegistry& counter_registry() const { return registry_; }

 private:
  void HandleMessage(const std::string& identity, std::string_view payload);
  // Takes the report's links (moved into the admission job).
  void HandleReport(Peer& peer, v1::FetchReport& report);
  void HandleReady(Peer& peer, const v1::Envelope& envelope);
  void HandleStatusRequest(Peer& peer, const v1::StatusRequest& request);
  void DrainAdmissions();
  Status OpenState();
  void RecordParent(const std::optional<ParentOutcome>& parent);
  // Stages a URL's final state: its seen entry, the deletion of its queue
  // entry, its origin's counters.
  void RecordFinal(const std::string& url, uint32_t origin_index, uint64_t seq, UrlState state,
                   const std::string& reason, uint32_t attempts);
  void MarkSeen(const std::string& url);
  void CommitState(bool force);
  void AdmitResult(AdmissionResult& result);
  // Admits the recrawl list's captures and stores their validators, once
  // per state (broker_recrawl.cc).
  Status LoadRecrawlList();
  // A continuous crawl (broker_refetch.cc): the plan of a done URL's next
  // fetch, from its report; and the due URLs put back in their queues.
  std::optional<RefetchPlan> PlanRefetch(const Completion& completion, const v1::FetchReport& report);
  RefetchPlan PlanAfterFailure(const ScheduledUrl& url);
  void QueueDueRefetches();
  // When the next refetch is due on the monotonic clock (INT64_MAX: none).
  int64_t NextRefetchMs() const;
  void Dispatch();
  // Acts on PeerTable's liveness check (lost peers' leases back, the
  // heartbeats owed), then expires leases.
  void Maintain();
  // RAM of the state that grows with the origins a crawl knows.
  uint64_t OriginStateBytes() const;
  // A source of the space wait changed (`detail` empty: it has room).
  void SetSpaceWait(SpaceWait::Source source, const std::string& detail);
  void AnnounceShutdown(const std::string& reason);
  void LogProgress(bool final);
  // Writes the state folder's CrawlBeacon (common/crawl_beacon.h): at
  // start, every kBeaconRefreshMs, and `stopped` at the end.
  void RefreshBeacon(bool stopped);
  // Defines every count in registry_ (broker_reports.cc), once the parts
  // it reads exist.
  void DefineCounters();
  void WriteSummary() const;
  void PublishMetrics();
  // False (counted, logged) if the envelope could not be queued for the peer.
  bool Send(Peer& peer, v1::Envelope& envelope);
  void SendStatus(Peer& peer, const std::string& control_result = "");
  // The crawl's view, as a StatusReply (the tools' and the console's).
  void FillStatus(v1::StatusReply& status);
  // The web console (broker_console.cc): started with --console-port; its
  // controls applied and its snapshot published, once a turn.
  Status StartConsole();
  // `controls_waiting`: the poll saw the console's queue signalled (its
  // eventfd is read only then: no syscall per turn otherwise).
  void MaintainConsole(bool controls_waiting);
  // An operator's Control (broker_control.cc): applied, saved, logged;
  // returns what changed, for the reply.
  // `sender`: who asked (a tool's sender id, "console:ADDRESS").
  std::string ApplyControl(const std::string& sender, const v1::Control& control);
  // The controls kept in the state, after it is opened; and staged for the
  // next write (after a control, and at each commit while blocks count).
  void RestoreControls();
  void StageControls();
  // add-seeds: admits what the scope allows (or widens it); says what
  // was admitted and refuses bad lines by their number.
  std::string AddSeeds(const v1::AddSeeds& request);
  // Asks fetchers (all, or the one `fetcher_id` names) for `threads`.
  void SendThreads(uint32_t threads, const std::string& fetcher_id);
  // Candidates an operator's block or a drain refuses leave `result`
  // before they are claimed, so an unblock lets later links in.
  void RefuseControlled(AdmissionResult& result);
  int PollTimeoutMs() const;

  const FrontierOptions& options_;
  zmq::context_t& context_;
  const Clock& clock_;
  EnvelopeCodec codec_;
  std::unique_ptr<ZapAuthenticator> zap_;  // CURVE allow-list, when enabled
  zmq::socket_t socket_;

  std::unique_ptr<ScopePolicy> scope_;
  std::unique_ptr<FreeSpaceGuard> state_space_;  // the state folder's free-space floor
  SpaceWait space_wait_;  // the writer's output or our state folder is full
  // The writer's latest WriterState (its row in status and the console).
  v1::WriterState writer_state_;
  int64_t writer_heard_ms_ = -1;  // never
  v1::NetworkPolicy network_policy_;  // sent to each fetcher that says Ready
  const MemoryBudget budget_;
  // Declared before what points at it. Always present: without --state it
  // lives in a temporary folder deleted on exit (one engine, one code path).
  std::unique_ptr<UrlStore> store_;
  KnownUrlCache known_;
  MemoryBalancer memory_;  // withholds from known_ and the store's cache
  std::unique_ptr<SeenSet> seen_;
  std::unique_ptr<CrawlScheduler> scheduler_;
  std::unique_ptr<RefetchSchedule> refetch_;  // a continuous crawl's only
  int64_t last_refetch_scan_ms_ = INT64_MIN / 2;
  std::unique_ptr<AdmissionLimits> limits_;
  std::unique_ptr<LinkAdmitter> admitter_;
  uint64_t pending_admissions_ = 0;
  int64_t last_commit_ms_ = 0;
  int64_t last_state_error_ms_ = INT64_MIN / 2;
  int64_t last_send_error_ms_ = INT64_MIN / 2;
  uint64_t state_write_errors_ = 0;
  bool already_finished_ = false;
  std::unique_ptr<MetricsServer> metrics_;  // null unless --metrics-port
  std::unique_ptr<ConsoleServer> console_;  // null unless --console-port
  ConsoleHistory console_history_;
  int64_t console_published_ms_ = INT64_MIN / 2;
  int64_t last_metrics_ms_ = 0;

  PeerTable peers_;
  std::string last_dispatched_;        // round-robin cursor over fetchers

  BrokerCounters counters_;
  bool finished_ = false;
  int64_t started_ms_ = 0;
  int64_t shutdown_started_ms_ = 0;
  int64_t last_progress_ms_ = 0;
  int64_t beacon_refreshed_ms_ = 0;
  CrawlControls controls_;      // pause, drain, blocks, overrides (frontier/control)
  bool stop_requested_ = false;  // by an operator's Stop: as a signal
  int64_t beacon_started_wall_ms_ = 0;
  int64_t beacon_error_ms_ = INT64_MIN / 2;
  uint64_t done_at_last_progress_ = 0;
  double pages_per_second_ = 0;
  CounterRegistry registry_;
};

}  // namespace zcrawl::frontier

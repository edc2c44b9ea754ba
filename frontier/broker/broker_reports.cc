// The Broker's reports on the crawl: every count it reports, defined once
// in DefineCounters (summary key, metric name, status field, help) and
// exported from there to the status reply (`./run status`), the summary
// file at the end and the Prometheus metrics page; and the progress log
// line. They read the scheduler's, the seen set's and the Broker's counters
// and change nothing but the rate LogProgress computes; called on the
// broker thread, like the rest of Broker.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>

#include "common/json_writer.h"
#include "frontier/broker/broker.h"

#include <unistd.h>

namespace zcrawl::frontier {
namespace {

constexpr CounterKind kCounter = CounterKind::kCounter;
constexpr CounterKind kGauge = CounterKind::kGauge;

// A table of origins for the summary: host, done, failed (and the last
// failure's cause, with `with_failure`).
void WriteOrigins(JsonWriter& json, const std::vector<v1::HostQueue>& origins, bool with_failure) {
  json.BeginArray();
  for (const auto& q : origins) {
    json.BeginObject().Key("host").String(q.host()).Key("done").Uint(q.done()).Key("failed").Uint(q.failed());
    if (with_failure) json.Key("last_failure").String(q.last_failure());
    json.EndObject();
  }
  json.EndArray();
}

// The origins that made the crawl slow down: how often, their pace at the
// end, and since when they were backing off (0: no longer).
void WriteSlowedOrigins(JsonWriter& json, const std::vector<v1::HostQueue>& origins) {
  json.BeginArray();
  for (const auto& q : origins) {
    json.BeginObject().Key("host").String(q.host()).Key("pushbacks").Uint(q.pushbacks());
    json.Key("gap_ms").Uint(q.gap_ms()).Key("concurrency").Uint(q.concurrency());
    json.Key("backoff_since_ms").Uint(q.backoff_since_ms()).Key("last_failure").String(q.last_failure());
    json.EndObject();
  }
  json.EndArray();
}

void WriteCounts(JsonWriter& json, const std::map<std::string, uint64_t>& counts) {
  json.BeginObject();
  for (const auto& [name, n] : counts) json.Key(name).Uint(n);
  json.EndObject();
}

uint64_t PeakRssKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss);
}

}  // namespace

void Broker::DefineCounters() {
  CounterRegistry& r = registry_;
  const auto counts = [this] { return scheduler_->counts(); };
  const auto seen = [this] { return seen_->counters(); };
  // In the summary's order; the metrics and the status reply take theirs
  // from it too.
  r.Add({.summary_key = "finished", .kind = kGauge, .help = "The crawl is finished",
         .status = StatusField(&v1::StatusReply::set_finished), .read = [this] { return finished_; }});
  r.Add({.summary_key = "done", .metric = "zcrawl_frontier_urls_done_total", .kind = kCounter,
         .help = "URLs fetched and stored", .status = StatusField(&v1::StatusReply::set_done),
         .read = [=] { return counts().done; }});
  r.Add({.summary_key = "failed", .metric = "zcrawl_frontier_urls_failed_total", .kind = kCounter,
         .help = "URLs failed for good", .status = StatusField(&v1::StatusReply::set_failed),
         .read = [=] { return counts().failed; }});
  r.Add({.summary_key = "waiting", .metric = "zcrawl_frontier_urls_waiting", .kind = kGauge,
         .help = "URLs waiting to be fetched", .status = StatusField(&v1::StatusReply::set_waiting),
         .read = [=] { return counts().waiting; }});
  r.Add({.summary_key = "leased", .metric = "zcrawl_frontier_urls_leased", .kind = kGauge,
         .help = "URLs leased to fetchers", .status = StatusField(&v1::StatusReply::set_leased),
         .read = [=] { return counts().leased; }});
  r.Add({.summary_key = "retried", .metric = "zcrawl_frontier_retries_total", .kind = kCounter,
         .help = "Retries scheduled", .read = [=] { return counts().retried; }});
  r.Add({.summary_key = "pushbacks", .metric = "zcrawl_frontier_pushbacks_total", .kind = kCounter,
         .help = "Answers that slowed their origin down (429, 503, 5xx runs, refused or timed-out connections)",
         .status = StatusField(&v1::StatusReply::set_pushbacks), .read = [this] { return scheduler_->pushbacks(); }});
  r.Add({.summary_key = "origins_backing_off", .metric = "zcrawl_frontier_origins_backing_off", .kind = kGauge,
         .help = "Origins in RAM whose requests are slowed by a back-off",
         .status = StatusField(&v1::StatusReply::set_origins_backing_off),
         .read = [this] { return scheduler_->origins_backing_off(); }});
  r.Add({.summary_key = "held_by_server", .metric = "zcrawl_frontier_held_by_server_total", .kind = kCounter,
         .help = "URLs answered 429/503 by an origin already pushing back, put back without using a retry",
         .status = StatusField(&v1::StatusReply::set_held_by_server),
         .read = [this] { return scheduler_->held_by_server(); }});
  r.Add({.summary_key = "answered_429", .metric = "zcrawl_frontier_http_429_total", .kind = kCounter,
         .help = "Responses 429 Too Many Requests", .read = [this] { return scheduler_->answered_429(); }});
  r.Add({.summary_key = "answered_503", .metric = "zcrawl_frontier_http_503_total", .kind = kCounter,
         .help = "Responses 503 Service Unavailable", .read = [this] { return scheduler_->answered_503(); }});
  r.Add({.summary_key = "address_waits", .metric = "zcrawl_frontier_address_waits_total", .kind = kCounter,
         .help = "Times an origin waited for room at its server address (--per-ip)",
         .read = [this] { return scheduler_->addresses().waits(); }});
  r.Add({.metric = "zcrawl_frontier_addresses_busy", .kind = kGauge,
         .help = "Server addresses with requests in flight, origins waiting or a delay running",
         .status = StatusField(&v1::StatusReply::set_addresses_busy),
         .read = [this] { return uint64_t{scheduler_->addresses().tracked()}; }});
  r.Add({.metric = "zcrawl_frontier_paused", .kind = kGauge, .help = "1 while an operator has paused the crawl",
         .read = [this] { return uint64_t{controls_.paused()}; }});
  r.Add({.metric = "zcrawl_frontier_draining", .kind = kGauge,
         .help = "1 while an operator drains the crawl (no new URLs admitted)",
         .read = [this] { return uint64_t{controls_.draining()}; }});
  r.Add({.summary_key = "seen", .metric = "zcrawl_frontier_seen_urls", .kind = kGauge,
         .help = "URLs in the seen set", .status = StatusField(&v1::StatusReply::set_seen),
         .read = [this] { return seen_->size(); }});
  r.Add({.summary_key = "origins", .metric = "zcrawl_frontier_origins", .kind = kGauge,
         .help = "Origins the crawl knows (politeness slots)", .status = StatusField(&v1::StatusReply::set_hosts),
         .read = [this] { return uint64_t{scheduler_->origins().known()}; }});
  r.Add({.summary_key = "seconds", .kind = kGauge, .help = "Seconds since the frontier started",
         .read = [this] { return static_cast<uint64_t>((clock_.NowMs() - started_ms_) / 1000); }});
  r.AddSummarySection("status_classes", [this](JsonWriter& j) { WriteCounts(j, scheduler_->status_classes()); });
  r.AddSummarySection("failure_reasons", [this](JsonWriter& j) { WriteCounts(j, scheduler_->failure_reasons()); });
  r.AddSummarySection("retry_reasons", [this](JsonWriter& j) { WriteCounts(j, scheduler_->retry_reasons()); });
  r.AddSummarySection("top_hosts", [this](JsonWriter& j) {
    WriteOrigins(j, scheduler_->TopOrigins(5, /*by_done=*/true), /*with_failure=*/false);
  });
  r.AddSummarySection("failing_hosts", [this](JsonWriter& j) {
    WriteOrigins(j, scheduler_->FailingOrigins(10), /*with_failure=*/true);
  });
  r.AddSummarySection("slowed_hosts", [this](JsonWriter& j) { WriteSlowedOrigins(j, scheduler_->SlowedOrigins(10)); });
  r.Add({.summary_key = "resumed", .kind = kGauge, .help = "The crawl went on from a state folder",
         .read = [this] { return store_->resumed(); }});
  r.Add({.summary_key = "already_finished", .kind = kGauge, .help = "The state folder held a finished crawl",
         .read = [this] { return already_finished_; }});
  r.Add({.summary_key = "seeds_skipped", .metric = "zcrawl_frontier_seeds_skipped_total", .kind = kCounter,
         .help = "Lines of the --seeds file skipped: not an http(s) URL",
         .read = [this] { return options_.seeds_skipped; }});
  r.Add({.summary_key = "links.reported", .metric = "zcrawl_frontier_links_reported_total", .kind = kCounter,
         .help = "Links reported by fetchers", .read = [this] { return counters_.links_reported; }});
  r.Add({.summary_key = "links.invalid", .metric = "zcrawl_frontier_links_invalid_total", .kind = kCounter,
         .help = "Reported links that did not parse", .read = [this] { return counters_.links_invalid; }});
  r.Add({.summary_key = "links.out_of_scope", .metric = "zcrawl_frontier_links_out_of_scope_total",
         .kind = kCounter, .help = "Links outside the scope", .read = [this] { return counters_.links_out_of_scope; }});
  r.Add({.summary_key = "links.over_limit", .metric = "zcrawl_frontier_links_over_limit_total", .kind = kCounter,
         .help = "New links refused by a budget", .read = [this] { return counters_.links_over_limit; }});
  // The trap guards' refusals, each by its reason (part of out_of_scope or,
  // query_variants, of over_limit).
  r.Add({.summary_key = "links.url_length", .metric = "zcrawl_frontier_links_url_length_total", .kind = kCounter,
         .help = "Links refused: longer than --max-url-length", .read = [this] { return counters_.links_url_length; }});
  r.Add({.summary_key = "links.path_repeat", .metric = "zcrawl_frontier_links_path_repeat_total", .kind = kCounter,
         .help = "Links refused: a path segment repeated more than --max-path-repeat times",
         .read = [this] { return counters_.links_path_repeat; }});
  r.Add({.summary_key = "links.query_params", .metric = "zcrawl_frontier_links_query_params_total",
         .kind = kCounter, .help = "Links refused: more than --max-query-params query parameters",
         .read = [this] { return counters_.links_query_params; }});
  r.Add({.summary_key = "links.query_variants", .metric = "zcrawl_frontier_links_query_variants_total",
         .kind = kCounter, .help = "New links refused: their path had --max-query-variants URLs with a query",
         .read = [this] { return counters_.links_query_variants; }});
  r.Add({.summary_key = "links.blocked", .metric = "zcrawl_frontier_links_blocked_total", .kind = kCounter,
         .help = "New links refused by an operator's block", .read = [this] { return counters_.links_blocked; }});
  r.Add({.summary_key = "links.draining", .metric = "zcrawl_frontier_links_draining_total", .kind = kCounter,
         .help = "New links refused while the crawl drains", .read = [this] { return counters_.links_draining; }});
  r.Add({.summary_key = "links.canonicalized", .metric = "zcrawl_frontier_links_canonicalized_total",
         .kind = kCounter, .help = "Links keyed by a canonical form other than their text (session ids removed)",
         .read = [this] { return counters_.links_canonicalized; }});
  r.Add({.metric = "zcrawl_frontier_links_duplicate_total", .kind = kCounter, .help = "Links to URLs already known",
         .read = [this] { return counters_.links_duplicate; }});
  r.Add({.summary_key = "malformed_messages", .metric = "zcrawl_frontier_malformed_messages_total",
         .kind = kCounter, .help = "Messages dropped as malformed",
         .status = StatusField(&v1::StatusReply::set_malformed_messages),
         .read = [this] { return counters_.malformed_messages; }});
  r.Add({.summary_key = "curve_clients_rejected", .metric = "zcrawl_frontier_curve_clients_rejected_total",
         .kind = kCounter, .help = "CURVE handshakes refused: a key not on --curve-allow",
         .read = [this] { return zap_ ? zap_->rejected() : 0; }});
  r.Add({.summary_key = "peers_lost", .metric = "zcrawl_frontier_peers_lost_total", .kind = kCounter,
         .help = "Peers declared dead", .read = [this] { return counters_.peers_lost; }});
  r.Add({.summary_key = "peers_joined", .metric = "zcrawl_frontier_peers_joined_total", .kind = kCounter,
         .help = "Peers that said READY on a connection the frontier did not know (fetchers, writers)",
         .read = [this] { return counters_.peers_joined; }});
  r.Add({.summary_key = "peers_rejoined", .metric = "zcrawl_frontier_peers_rejoined_total", .kind = kCounter,
         .help = "Fetchers that said READY again before they were declared dead (reconnected)",
         .read = [this] { return counters_.peers_rejoined; }});
  r.Add({.summary_key = "leases_not_held", .metric = "zcrawl_frontier_leases_not_held_total", .kind = kCounter,
         .help = "Leases returned when their fetcher rejoined without them",
         .read = [this] { return counters_.leases_not_held; }});
  r.Add({.summary_key = "stale_reports", .kind = kCounter,
         .help = "Reports of leases no longer their fetcher's, ignored",
         .read = [this] { return counters_.stale_reports; }});
  r.Add({.summary_key = "own_stalls", .metric = "zcrawl_frontier_own_stalls_total", .kind = kCounter,
         .help = "Times the frontier itself stood still longer than a peer's liveness allows",
         .read = [this] { return counters_.own_stalls; }});
  r.Add({.summary_key = "space_waits", .kind = kCounter, .help = "Times the crawl waited for disk space",
         .read = [this] { return space_wait_.waits(); }});
  r.Add({.summary_key = "waited_for_space_ms", .kind = kCounter, .help = "Milliseconds the crawl waited for disk space",
         .read = [this] { return static_cast<int64_t>(space_wait_.waited_ms(clock_.NowMs())); }});
  // What the memory budget bought: the frontier's own peak, and how much of
  // the queues and seen checks went to disk.
  r.Add({.summary_key = "memory.budget_mb", .kind = kGauge, .help = "--memory-mb, at least its minimum",
         .read = [this] { return std::max(options_.memory_mb, MemoryBudget::kMinMb); }});
  r.Add({.summary_key = "memory.peak_rss_kb", .kind = kGauge, .help = "The frontier's peak RSS",
         .read = [] { return PeakRssKb(); }});
  r.Add({.summary_key = "memory.queue_refills", .metric = "zcrawl_frontier_queue_refills_total", .kind = kCounter,
         .help = "Queue heads loaded from disk", .read = [this] { return scheduler_->heads().refills(); }});
  r.Add({.summary_key = "memory.queue_errors", .kind = kCounter, .help = "Queue reads or writes that failed",
         .read = [this] { return scheduler_->heads().errors(); }});
  r.Add({.summary_key = "memory.seen_checks", .metric = "zcrawl_frontier_seen_checks_total", .kind = kCounter,
         .help = "Seen-set checks (every in-scope reported link)", .read = [=] { return seen().checks; }});
  r.Add({.summary_key = "memory.seen_disk_lookups", .metric = "zcrawl_frontier_seen_disk_lookups_total",
         .kind = kCounter, .help = "Seen checks that asked the store", .read = [=] { return seen().disk_lookups; }});
  r.Add({.summary_key = "memory.store_disk_bytes", .metric = "zcrawl_frontier_store_disk_bytes", .kind = kGauge,
         .help = "Bytes of the store on disk", .read = [this] { return store_->disk_bytes(); }});
  r.Add({.summary_key = "memory.state_write_errors", .metric = "zcrawl_frontier_state_write_errors_total",
         .kind = kCounter, .help = "Failed writes of the crawl state", .read = [this] { return state_write_errors_; }});
  // A continuous crawl: fetches of done URLs, and what they found.
  const auto continuous = [this] { return refetch_ != nullptr; };
  r.Add({.summary_key = "refetches.queued", .kind = kCounter, .help = "Done URLs put back in their queues when due",
         .read = [this] { return counters_.refetches_queued; }, .shown = continuous});
  r.Add({.summary_key = "refetches.changed", .kind = kCounter, .help = "Refetches that found the page changed",
         .read = [this] { return counters_.refetches_changed; }, .shown = continuous});
  r.Add({.summary_key = "refetches.unchanged", .kind = kCounter, .help = "Refetches that found the page unchanged",
         .read = [this] { return counters_.refetches_unchanged; }, .shown = continuous});
  r.Add({.summary_key = "refetches.failed", .kind = kCounter, .help = "Failed URLs looked at again later",
         .read = [this] { return counters_.refetches_failed; }, .shown = continuous});
  r.Add({.summary_key = "refetches.out_of_scope", .kind = kCounter, .help = "Due URLs the scope now refuses",
         .read = [this] { return counters_.refetches_out_of_scope; }, .shown = continuous});
  r.Add({.summary_key = "refetches.malformed", .kind = kCounter, .help = "Schedule entries that did not parse",
         .read = [this] { return refetch_->malformed(); }, .shown = continuous});
  r.Add({.summary_key = "refetches.errors", .kind = kCounter, .help = "Schedule scans that failed (retried)",
         .read = [this] { return counters_.refetch_errors; }, .shown = continuous});

  // Metrics only.
  r.Add({.metric = "zcrawl_frontier_leases_expired_total", .kind = kCounter, .help = "Leases that expired",
         .read = [=] { return counts().expired_leases; }});
  r.Add({.metric = "zcrawl_frontier_seen_cache_hits_total", .kind = kCounter,
         .help = "Seen checks the known-URL cache answered", .read = [=] { return seen().cache_hits; }});
  r.Add({.metric = "zcrawl_frontier_seen_filter_false_positives_total", .kind = kCounter,
         .help = "Filter said maybe for a new URL", .read = [=] { return seen().filter_false_positives; }});
  r.Add({.metric = "zcrawl_frontier_seen_link_disk_lookups_total", .kind = kCounter,
         .help = "Of the disk lookups, those the link threads made", .read = [=] { return seen().link_disk_lookups; }});
  r.Add({.metric = "zcrawl_frontier_seen_link_found_stored_total", .kind = kCounter,
         .help = "Links the link threads found in the store", .read = [=] { return seen().link_found_stored; }});
  r.Add({.metric = "zcrawl_frontier_seen_link_answers_used_total", .kind = kCounter,
         .help = "Checks decided on a link thread's not-stored answer", .read = [=] { return seen().link_answers_used; }});
  r.Add({.metric = "zcrawl_frontier_seen_link_answers_behind_total", .kind = kCounter,
         .help = "Checks decided on a link thread's not-stored answer one settled batch old",
         .read = [=] { return seen().link_answers_behind; }});
  r.Add({.metric = "zcrawl_frontier_seen_link_answers_stale_total", .kind = kCounter,
         .help = "Checks asked again: batches settled after the link thread's answer",
         .read = [=] { return seen().link_answers_stale; }});
  r.Add({.metric = "zcrawl_frontier_seen_filter_bytes", .kind = kGauge, .help = "Memory of the seen filter",
         .read = [this] { return seen_->filter_bytes(); }});
  r.Add({.metric = "zcrawl_frontier_known_cache_bytes", .kind = kGauge, .help = "Memory of the known-URL cache",
         .read = [this] { return known_.memory_bytes(); }});
  r.Add({.metric = "zcrawl_frontier_known_cache_max_bytes", .kind = kGauge,
         .help = "Bound of the known-URL cache (its budget share and what the final seen filter lent it)",
         .read = [this] { return known_.max_bytes(); }});
  r.Add({.metric = "zcrawl_frontier_store_memory_bytes", .kind = kGauge,
         .help = "Memory of the store (cache, memtables, readers)", .read = [this] { return store_->memory_bytes(); }});
  r.Add({.metric = "zcrawl_frontier_store_cache_capacity_bytes", .kind = kGauge,
         .help = "Capacity of the store's block cache (its share of --memory-mb, less what the heap governor withholds)",
         .read = [this] { return store_->cache_capacity(); }});
  r.Add({.metric = "zcrawl_frontier_queued_in_ram", .kind = kGauge, .help = "Queued URLs held in RAM (queue heads)",
         .read = [this] { return scheduler_->heads().loaded(); }});
  // Measured only on jemalloc, from the first balance on.
  const auto heap_read = [this] { return memory_.last_heap().has_value(); };
  r.Add({.metric = "zcrawl_frontier_heap_allocated_bytes", .kind = kGauge,
         .help = "Bytes the allocator has handed out (jemalloc)",
         .read = [this] { return memory_.last_heap()->allocated_bytes; }, .shown = heap_read});
  r.Add({.metric = "zcrawl_frontier_heap_withheld_bytes", .kind = kGauge,
         .help = "Bytes the store's block cache gives up while the heap is past --memory-mb (HeapGovernor)",
         .read = [this] { return memory_.heap_withheld(); }, .shown = heap_read});
  r.Add({.metric = "zcrawl_frontier_heap_resident_bytes", .kind = kGauge,
         .help = "Bytes of RAM the allocator keeps: handed out, its metadata, and freed pages it has not given back "
                 "yet (jemalloc)",
         .read = [this] { return memory_.last_heap()->resident_bytes; }, .shown = heap_read});
  r.Add({.metric = "zcrawl_frontier_robots_spilled_total", .kind = kCounter,
         .help = "Idle origins whose robots rules left RAM for the store",
         .read = [this] { return scheduler_->robots().spilled(); }});
  r.Add({.metric = "zcrawl_frontier_robots_reloaded_total", .kind = kCounter,
         .help = "Robots rules read back from the store for a lease", .read = [this] { return scheduler_->robots().reloaded(); }});
  r.Add({.metric = "zcrawl_frontier_robots_reload_misses_total", .kind = kCounter,
         .help = "Robots rules the store did not have: robots.txt asked again",
         .read = [this] { return scheduler_->robots().reload_misses(); }});
  r.Add({.metric = "zcrawl_frontier_origin_state_bytes", .kind = kGauge,
         .help = "Bytes of RAM the state of the origins in RAM holds (slots, names, robots rules, domain counters)",
         .read = [this] { return OriginStateBytes(); }});
  r.Add({.metric = "zcrawl_frontier_queue_head_bytes", .kind = kGauge,
         .help = "Bytes of RAM the queue heads hold (bounded by their share of --memory-mb)",
         .read = [this] { return scheduler_->heads().head_bytes(); }});
  r.Add({.metric = "zcrawl_frontier_origins_parked", .kind = kGauge,
         .help = "Origins with nothing due, held in the store only", .read = [this] { return scheduler_->origins().parked(); }});
  r.Add({.metric = "zcrawl_frontier_origins_in_line", .kind = kGauge,
         .help = "Parked origins with URLs queued, waiting for room in RAM (some stale: loaded since)",
         .read = [this] { return scheduler_->origins().in_line(); }});
  r.Add({.metric = "zcrawl_frontier_origin_yields_total", .kind = kCounter,
         .help = "Origins that parked with URLs left, their turn over", .read = [this] { return scheduler_->origins().yields(); }});
  r.Add({.metric = "zcrawl_frontier_origins_unparked_total", .kind = kCounter,
         .help = "Parked origins loaded back from the store (a URL admitted or a final state recorded for one)",
         .read = [this] { return scheduler_->origins().unparked(); }});
  r.Add({.metric = "zcrawl_frontier_origin_errors_total", .kind = kCounter,
         .help = "Reads of a parked origin that failed (logged)", .read = [this] { return scheduler_->origins().errors(); }});
  r.Add({.metric = "zcrawl_frontier_sends_failed_total", .kind = kCounter, .help = "Envelopes that could not be sent",
         .read = [this] { return counters_.sends_failed; }});
  r.Add({.metric = "zcrawl_frontier_waiting_for_space", .kind = kGauge,
         .help = "1 while the crawl waits for disk space (writer output or frontier state)",
         .read = [this] { return uint64_t{space_wait_.waiting() ? 1u : 0u}; }});
  r.Add({.metric = "zcrawl_frontier_leases_unsent_total", .kind = kCounter,
         .help = "Leases whose WorkBatch could not be sent, returned at once",
         .read = [this] { return counters_.leases_unsent; }});
  r.Add({.metric = "zcrawl_frontier_console_snapshots_total", .kind = kCounter,
         .help = "Snapshots built for the web console (one a second while anyone looks, and one per control)",
         .read = [this] { return counters_.console_snapshots; }});
  r.Add({.metric = "zcrawl_frontier_fetchers", .kind = kGauge, .help = "Connected fetchers",
         .read = [this] { return peers_.fetchers(); }});
  r.Add({.metric = "zcrawl_frontier_pages_per_second", .kind = kGauge, .help = "Recent completion rate",
         .status = StatusField(&v1::StatusReply::set_pages_per_second), .read = [this] { return pages_per_second_; }});

  // The status reply only.
  r.Add({.kind = kGauge, .help = "Milliseconds since the frontier started",
         .status = StatusField(&v1::StatusReply::set_uptime_ms),
         .read = [this] { return static_cast<uint64_t>(clock_.NowMs() - started_ms_); }});
  r.Add({.kind = kGauge, .help = "The crawl's --max-pages (0: none), for an ETA",
         .status = StatusField(&v1::StatusReply::set_max_pages), .read = [this] { return options_.limits.max_pages; }});
}

void Broker::HandleStatusRequest(Peer& peer, const v1::StatusRequest& request) {
  std::string control_result;
  if (request.has_control()) control_result = ApplyControl(peer.sender_id, request.control());
  if (request.set_threads() > 0) SendThreads(request.set_threads(), request.fetcher_id());
  SendStatus(peer, control_result);
}

void Broker::SendStatus(Peer& peer, const std::string& control_result) {
  v1::Envelope envelope;
  FillStatus(*envelope.mutable_status_reply());
  envelope.mutable_status_reply()->set_control_result(control_result);
  Send(peer, envelope);
}

void Broker::FillStatus(v1::StatusReply& reply) {
  v1::StatusReply* status = &reply;
  registry_.FillStatus(*status);
  status->set_paused(controls_.paused());
  status->set_draining(controls_.draining());
  for (auto& rule : controls_.blocks().Rules()) *status->add_blocks() = std::move(rule);
  for (auto& rule : controls_.overrides().Rules()) *status->add_overrides() = std::move(rule);
  const int64_t now = clock_.NowMs();
  status->set_waiting_for_space(space_wait_.Describe(now));
  for (auto& q : scheduler_->TopOrigins(10)) *status->add_top_hosts() = std::move(q);
  for (auto& q : scheduler_->FailingOrigins(10)) *status->add_failing_hosts() = std::move(q);
  for (auto& q : scheduler_->SlowedOrigins(10)) *status->add_slowed_hosts() = std::move(q);
  for (const auto& a : scheduler_->addresses().Busiest(10, now)) {
    auto* row = status->add_addresses();
    row->set_address(a.address);
    row->set_in_flight(a.in_flight);
    row->set_origins_waiting(a.origins_waiting);
    row->set_delay_left_ms(static_cast<uint64_t>(a.delay_left_ms));
  }
  for (const auto& [id, p] : peers_) {
    if (p.role != v1::PEER_ROLE_FETCHER) continue;
    auto* row = status->add_fetchers();
    row->set_sender_id(p.sender_id);
    row->set_leased(scheduler_->leases_of(p.identity));
    *row->mutable_load() = p.load;
    row->set_last_seen_ms_ago(static_cast<uint64_t>(now - p.liveness.last_seen_ms));
    row->set_hostname(p.hostname);
    row->set_pid(p.pid);
    row->set_completed(p.completed);
  }
  if (writer_heard_ms_ >= 0) {
    *status->mutable_writer() = writer_state_;
    status->set_writer_last_seen_ms_ago(static_cast<uint64_t>(now - writer_heard_ms_));
  }
}

void Broker::LogProgress(bool final) {
  const int64_t now = clock_.NowMs();
  const auto& c = scheduler_->counts();
  const uint64_t completed = c.done + c.failed;
  if (now > last_progress_ms_) {
    pages_per_second_ = static_cast<double>(completed - done_at_last_progress_) * 1000.0 /
                        static_cast<double>(now - last_progress_ms_);
  }
  last_progress_ms_ = now;
  done_at_last_progress_ = completed;
  spdlog::info("{} done={} failed={} waiting={} leased={} seen={} origins={} rate={:.1f}/s{}{}",
               final ? "crawl finished" : "progress", c.done, c.failed, c.waiting, c.leased,
               seen_->size(), scheduler_->origins().known(), pages_per_second_,
               space_wait_.waiting() ? " WAITING FOR SPACE: " : "", space_wait_.Describe(now));
}

void Broker::WriteSummary() const {
  if (options_.summary_file.empty()) return;
  std::ofstream out(options_.summary_file, std::ios::trunc);
  out << registry_.SummaryJson() << "\n";
  if (!out) spdlog::warn("cannot write summary file={}", options_.summary_file);
}

void Broker::PublishMetrics() {
  const int64_t now = clock_.NowMs();
  if (!metrics_ || now - last_metrics_ms_ < 1000) return;
  last_metrics_ms_ = now;
  metrics_->Publish(registry_.MetricsText());
}

void Broker::RefreshBeacon(bool stopped) {
  beacon_refreshed_ms_ = clock_.NowMs();
  if (options_.state_dir.empty()) return;
  CrawlBeacon beacon;
  beacon.endpoints = ReachableEndpoints(options_.bind);
  if (beacon.endpoints.empty()) return;  // nothing a tool could reach
  if (metrics_) beacon.metrics = "http://" + options_.metrics_bind + ":" + std::to_string(metrics_->port()) + "/metrics";
  if (console_) beacon.console = console_->url(/*with_token=*/false);
  beacon.pid = getpid();
  beacon.started_ms = beacon_started_wall_ms_;
  beacon.alive_ms = clock_.WallMs();
  if (stopped) beacon.stopped_ms = beacon.alive_ms;
  // A beacon that cannot be written costs `./run status` its way here,
  // not the crawl: logged once per minute at most.
  if (Status s = WriteCrawlBeacon(options_.state_dir, beacon); !s.ok() && clock_.NowMs() - beacon_error_ms_ >= 60000) {
    beacon_error_ms_ = clock_.NowMs();
    spdlog::warn("cannot write the crawl's beacon: {}", s.message());
  }
}

}  // namespace zcrawl::frontier

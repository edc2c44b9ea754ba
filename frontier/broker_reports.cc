// The Broker's reports on the crawl, split from broker.cc (which routes):
// the status reply (`./run status`), the progress log line, the summary
// file at the end, and the Prometheus metrics page. They read the
// scheduler's and the seen set's counters and change nothing but the rate
// they compute; called on the broker thread, like the rest of Broker.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <fstream>

#include "common/json_writer.h"
#include "common/metrics_server.h"
#include "frontier/broker.h"

namespace zcrawl::frontier {

void Broker::SendStatus(Peer& peer) {
  v1::Envelope envelope;
  auto* status = envelope.mutable_status_reply();
  const auto& counts = scheduler_->counts();
  status->set_waiting(counts.waiting);
  status->set_leased(counts.leased);
  status->set_done(counts.done);
  status->set_failed(counts.failed);
  status->set_seen(seen_->size());
  status->set_pages_per_second(pages_per_second_);
  status->set_finished(finished_);
  status->set_uptime_ms(static_cast<uint64_t>(clock_.NowMs() - started_ms_));
  status->set_max_pages(options_.max_pages);
  status->set_hosts(scheduler_->origin_count());
  status->set_malformed_messages(counters_.malformed_messages);
  status->set_waiting_for_space(space_wait_.Describe(clock_.NowMs()));
  for (auto& q : scheduler_->TopOrigins(10)) *status->add_top_hosts() = std::move(q);
  for (auto& q : scheduler_->FailingOrigins(10)) *status->add_failing_hosts() = std::move(q);
  const int64_t now = clock_.NowMs();
  for (const auto& [id, p] : peers_) {
    if (p.role != v1::PEER_ROLE_FETCHER) continue;
    auto* row = status->add_fetchers();
    row->set_sender_id(p.sender_id);
    row->set_leased(scheduler_->leases_of(p.identity));
    *row->mutable_load() = p.load;
    row->set_last_seen_ms_ago(static_cast<uint64_t>(now - p.last_seen_ms));
  }
  Send(peer, envelope);
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
               seen_->size(), scheduler_->origin_count(), pages_per_second_,
               space_wait_.waiting() ? " WAITING FOR SPACE: " : "", space_wait_.Describe(now));
}

void Broker::WriteSummary() const {
  if (options_.summary_file.empty()) return;
  const auto& c = scheduler_->counts();
  JsonWriter json;
  json.BeginObject()
      .Key("finished").Bool(finished_)
      .Key("done").Uint(c.done)
      .Key("failed").Uint(c.failed)
      .Key("waiting").Uint(c.waiting)
      .Key("leased").Uint(c.leased)
      .Key("retried").Uint(c.retried)
      .Key("seen").Uint(seen_->size())
      .Key("origins").Uint(scheduler_->origin_count())
      .Key("seconds").Uint(static_cast<uint64_t>((clock_.NowMs() - started_ms_) / 1000));
  json.Key("status_classes").BeginObject();
  for (const auto& [name, n] : scheduler_->status_classes()) json.Key(name).Uint(n);
  json.EndObject();
  json.Key("failure_reasons").BeginObject();
  for (const auto& [name, n] : scheduler_->failure_reasons()) json.Key(name).Uint(n);
  json.EndObject();
  json.Key("retry_reasons").BeginObject();
  for (const auto& [name, n] : scheduler_->retry_reasons()) json.Key(name).Uint(n);
  json.EndObject();
  json.Key("top_hosts").BeginArray();
  for (const auto& q : scheduler_->TopOrigins(5, /*by_done=*/true)) {
    json.BeginObject().Key("host").String(q.host()).Key("done").Uint(q.done())
        .Key("failed").Uint(q.failed()).EndObject();
  }
  json.EndArray();
  json.Key("failing_hosts").BeginArray();
  for (const auto& q : scheduler_->FailingOrigins(10)) {
    json.BeginObject().Key("host").String(q.host()).Key("done").Uint(q.done())
        .Key("failed").Uint(q.failed()).Key("last_failure").String(q.last_failure()).EndObject();
  }
  json.EndArray();
  json.Key("resumed").Bool(store_->resumed());
  json.Key("already_finished").Bool(already_finished_);
  json.Key("links").BeginObject()
      .Key("reported").Uint(counters_.links_reported)
      .Key("invalid").Uint(counters_.links_invalid)
      .Key("out_of_scope").Uint(counters_.links_out_of_scope)
      .Key("over_limit").Uint(counters_.links_over_limit)
      .EndObject();
  json.Key("malformed_messages").Uint(counters_.malformed_messages);
  json.Key("peers_lost").Uint(counters_.peers_lost);  // declared dead after liveness x heartbeat of silence
  json.Key("leases_not_held").Uint(counters_.leases_not_held);  // returned when a fetcher rejoined without them
  json.Key("stale_reports").Uint(counters_.stale_reports);  // reports of leases no longer theirs, ignored
  json.Key("own_stalls").Uint(counters_.own_stalls);
  json.Key("space_waits").Uint(space_wait_.waits());  // times the crawl waited for disk space
  json.Key("waited_for_space_ms").Int(space_wait_.waited_ms(clock_.NowMs()));  // the frontier itself stood still (stopped, swapped out)
  // What the memory budget bought: the frontier's own peak, and how much of
  // the queues and seen checks went to disk.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const SeenSetCounters seen = seen_->counters();
  json.Key("memory").BeginObject()
      .Key("budget_mb").Uint(std::max(options_.memory_mb, MemoryBudget::kMinMb))
      .Key("peak_rss_kb").Uint(static_cast<uint64_t>(usage.ru_maxrss))
      .Key("queue_refills").Uint(scheduler_->refills())
      .Key("queue_errors").Uint(scheduler_->queue_errors())
      .Key("seen_checks").Uint(seen.checks)
      .Key("seen_disk_lookups").Uint(seen.disk_lookups)
      .Key("store_disk_bytes").Uint(store_->disk_bytes())
      .Key("state_write_errors").Uint(state_write_errors_)
      .EndObject();
  if (refetch_) {
    // A continuous crawl: fetches of done URLs, and what they found.
    json.Key("refetches").BeginObject()
        .Key("queued").Uint(counters_.refetches_queued)
        .Key("changed").Uint(counters_.refetches_changed)
        .Key("unchanged").Uint(counters_.refetches_unchanged)
        .Key("failed").Uint(counters_.refetches_failed)
        .Key("out_of_scope").Uint(counters_.refetches_out_of_scope)
        .Key("malformed").Uint(refetch_->malformed())
        .Key("errors").Uint(counters_.refetch_errors)
        .EndObject();
  }
  json.EndObject();
  std::ofstream out(options_.summary_file, std::ios::trunc);
  out << json.str() << "\n";
  if (!out) spdlog::warn("cannot write summary file={}", options_.summary_file);
}

void Broker::PublishMetrics() {
  const int64_t now = clock_.NowMs();
  if (!metrics_ || now - last_metrics_ms_ < 1000) return;
  last_metrics_ms_ = now;
  const auto& c = scheduler_->counts();
  std::string out;
  AppendMetric(out, "zcrawl_frontier_urls_waiting", "gauge", "URLs waiting to be fetched", c.waiting);
  AppendMetric(out, "zcrawl_frontier_urls_leased", "gauge", "URLs leased to fetchers", c.leased);
  AppendMetric(out, "zcrawl_frontier_urls_done_total", "counter", "URLs fetched and stored", c.done);
  AppendMetric(out, "zcrawl_frontier_urls_failed_total", "counter", "URLs failed for good", c.failed);
  AppendMetric(out, "zcrawl_frontier_retries_total", "counter", "Retries scheduled", c.retried);
  AppendMetric(out, "zcrawl_frontier_leases_expired_total", "counter", "Leases that expired", c.expired_leases);
  AppendMetric(out, "zcrawl_frontier_seen_urls", "gauge", "URLs in the seen set", seen_->size());
  const SeenSetCounters seen = seen_->counters();
  AppendMetric(out, "zcrawl_frontier_seen_checks_total", "counter", "Seen-set checks (every in-scope reported link)", seen.checks);
  AppendMetric(out, "zcrawl_frontier_seen_cache_hits_total", "counter", "Seen checks the known-URL cache answered", seen.cache_hits);
  AppendMetric(out, "zcrawl_frontier_seen_disk_lookups_total", "counter", "Seen checks that asked the store", seen.disk_lookups);
  AppendMetric(out, "zcrawl_frontier_seen_filter_false_positives_total", "counter", "Filter said maybe for a new URL", seen.filter_false_positives);
  AppendMetric(out, "zcrawl_frontier_seen_link_disk_lookups_total", "counter", "Of the disk lookups, those the link threads made", seen.link_disk_lookups);
  AppendMetric(out, "zcrawl_frontier_seen_link_found_stored_total", "counter", "Links the link threads found in the store", seen.link_found_stored);
  AppendMetric(out, "zcrawl_frontier_seen_link_answers_used_total", "counter", "Checks decided on a link thread's not-stored answer", seen.link_answers_used);
  AppendMetric(out, "zcrawl_frontier_seen_link_answers_behind_total", "counter", "Checks decided on a link thread's not-stored answer one settled batch old", seen.link_answers_behind);
  AppendMetric(out, "zcrawl_frontier_seen_link_answers_stale_total", "counter", "Checks asked again: batches settled after the link thread's answer", seen.link_answers_stale);
  AppendMetric(out, "zcrawl_frontier_seen_filter_bytes", "gauge", "Memory of the seen filter", seen_->filter_bytes());
  AppendMetric(out, "zcrawl_frontier_known_cache_bytes", "gauge", "Memory of the known-URL cache", known_.memory_bytes());
  AppendMetric(out, "zcrawl_frontier_known_cache_max_bytes", "gauge", "Bound of the known-URL cache (its budget share and what the final seen filter lent it)", known_.max_bytes());
  AppendMetric(out, "zcrawl_frontier_store_memory_bytes", "gauge", "Memory of the store (cache, memtables, readers)", store_->memory_bytes());
  AppendMetric(out, "zcrawl_frontier_store_cache_capacity_bytes", "gauge", "Capacity of the store's block cache (its share of --memory-mb, less what the heap governor withholds)", store_->cache_capacity());
  AppendMetric(out, "zcrawl_frontier_store_disk_bytes", "gauge", "Bytes of the store on disk", store_->disk_bytes());
  AppendMetric(out, "zcrawl_frontier_queued_in_ram", "gauge", "Queued URLs held in RAM (queue heads)", scheduler_->loaded_urls());
  if (const auto& heap = last_heap_) {
    AppendMetric(out, "zcrawl_frontier_heap_allocated_bytes", "gauge", "Bytes the allocator has handed out (jemalloc)", heap->allocated_bytes);
    AppendMetric(out, "zcrawl_frontier_heap_withheld_bytes", "gauge", "Bytes the store's block cache gives up while the heap is past --memory-mb (HeapGovernor)", heap_governor_.withheld());
    AppendMetric(out, "zcrawl_frontier_heap_resident_bytes", "gauge", "Bytes of RAM the allocator keeps: handed out, its metadata, and freed pages it has not given back yet (jemalloc)", heap->resident_bytes);
  }
  AppendMetric(out, "zcrawl_frontier_robots_spilled_total", "counter", "Idle origins whose robots rules left RAM for the store", scheduler_->robots_spilled());
  AppendMetric(out, "zcrawl_frontier_robots_reloaded_total", "counter", "Robots rules read back from the store for a lease", scheduler_->robots_reloaded());
  AppendMetric(out, "zcrawl_frontier_robots_reload_misses_total", "counter", "Robots rules the store did not have: robots.txt asked again", scheduler_->robots_reload_misses());
  AppendMetric(out, "zcrawl_frontier_origin_state_bytes", "gauge", "Bytes of RAM the state of the origins in RAM holds (slots, names, robots rules, domain counters)", OriginStateBytes());
  AppendMetric(out, "zcrawl_frontier_queue_head_bytes", "gauge", "Bytes of RAM the queue heads hold (bounded by their share of --memory-mb)", scheduler_->head_bytes());
  AppendMetric(out, "zcrawl_frontier_queue_refills_total", "counter", "Queue heads loaded from disk", scheduler_->refills());
  AppendMetric(out, "zcrawl_frontier_state_write_errors_total", "counter", "Failed writes of the crawl state", state_write_errors_);
  AppendMetric(out, "zcrawl_frontier_origins", "gauge", "Origins the crawl knows (politeness slots)", scheduler_->origin_count());
  AppendMetric(out, "zcrawl_frontier_origins_parked", "gauge", "Origins with nothing due, held in the store only", scheduler_->parked_origins());
  AppendMetric(out, "zcrawl_frontier_origins_in_line", "gauge", "Parked origins with URLs queued, waiting for room in RAM (some stale: loaded since)", scheduler_->origins_in_line());
  AppendMetric(out, "zcrawl_frontier_origin_yields_total", "counter", "Origins that parked with URLs left, their turn over", scheduler_->yields());
  AppendMetric(out, "zcrawl_frontier_origins_unparked_total", "counter", "Parked origins loaded back from the store (a URL admitted or a final state recorded for one)", scheduler_->unparked());
  AppendMetric(out, "zcrawl_frontier_origin_errors_total", "counter", "Reads of a parked origin that failed (logged)", scheduler_->origin_errors());
  AppendMetric(out, "zcrawl_frontier_links_reported_total", "counter", "Links reported by fetchers", counters_.links_reported);
  AppendMetric(out, "zcrawl_frontier_links_invalid_total", "counter", "Reported links that did not parse", counters_.links_invalid);
  AppendMetric(out, "zcrawl_frontier_links_out_of_scope_total", "counter", "Links outside the scope", counters_.links_out_of_scope);
  AppendMetric(out, "zcrawl_frontier_links_duplicate_total", "counter", "Links to URLs already known", counters_.links_duplicate);
  AppendMetric(out, "zcrawl_frontier_links_over_limit_total", "counter", "New links refused by a budget", counters_.links_over_limit);
  AppendMetric(out, "zcrawl_frontier_malformed_messages_total", "counter", "Messages dropped as malformed", counters_.malformed_messages);
  AppendMetric(out, "zcrawl_frontier_peers_lost_total", "counter", "Peers declared dead", counters_.peers_lost);
  AppendMetric(out, "zcrawl_frontier_sends_failed_total", "counter", "Envelopes that could not be sent", counters_.sends_failed);
  AppendMetric(out, "zcrawl_frontier_waiting_for_space", "gauge", "1 while the crawl waits for disk space (writer output or frontier state)", space_wait_.waiting() ? 1 : 0);
  AppendMetric(out, "zcrawl_frontier_leases_not_held_total", "counter", "Leases returned when their fetcher rejoined without them", counters_.leases_not_held);
  AppendMetric(out, "zcrawl_frontier_own_stalls_total", "counter", "Times the frontier itself stood still longer than a peer's liveness allows", counters_.own_stalls);
  AppendMetric(out, "zcrawl_frontier_leases_unsent_total", "counter", "Leases whose WorkBatch could not be sent, returned at once", counters_.leases_unsent);
  uint64_t fetchers = 0;
  for (const auto& [id, peer] : peers_) fetchers += peer.role == v1::PEER_ROLE_FETCHER;
  AppendMetric(out, "zcrawl_frontier_fetchers", "gauge", "Connected fetchers", fetchers);
  AppendMetric(out, "zcrawl_frontier_pages_per_second", "gauge", "Recent completion rate", pages_per_second_);
  metrics_->Publish(std::move(out));
}

}  // namespace zcrawl::frontier

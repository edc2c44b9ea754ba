#include "frontier/broker.h"

#include <algorithm>
#include <climits>
#include <fstream>
#include <sys/resource.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/json_writer.h"
#include "common/seed_list.h"
#include "common/shutdown_signal.h"
#include "common/socket_security.h"
#include "common/url.h"
#include "common/zmq_io.h"
#include "frontier/url_fingerprint.h"

namespace zcrawl::frontier {
namespace {

constexpr int64_t kProgressIntervalMs = 5000;
constexpr uint32_t kMaxCredit = 100000;

std::string MakeSenderId() { return MakeRunId("frontier"); }

SchedulerOptions ToSchedulerOptions(const FrontierOptions& o) {
  SchedulerOptions s;
  s.delay_ms = o.delay_ms;
  s.per_host = o.per_host;
  s.obey_robots = o.obey_robots;
  s.robots_agent = o.robots_agent;
  s.lease_ms = o.lease_ms;
  s.retries = o.retries;
  s.retry_base_ms = o.retry_base_ms;
  s.max_loaded = MemoryBudget::ForMb(o.memory_mb).head_urls;
  return s;
}

}  // namespace

Broker::Broker(const FrontierOptions& options, zmq::context_t& context, const Clock& clock)
    : options_(options),
      context_(context),
      clock_(clock),
      codec_(MakeSenderId()),
      budget_(MemoryBudget::ForMb(options.memory_mb)),
      known_(budget_.known_cache_bytes),
      limits_(std::make_unique<AdmissionLimits>(AdmissionLimitsOptions{
          options.max_pages, options.max_pages_per_host, options.max_pages_per_domain,
          options.max_query_variants})) {}

Broker::~Broker() {
  if (admitter_) admitter_->Stop();
}

Status Broker::Start() {
  started_ms_ = clock_.NowMs();
  last_progress_ms_ = started_ms_;
  // Seeds first: a bad seed is a configuration error, reported before any
  // socket is bound.
  std::vector<Url> seeds;
  ScopeOptions scope;
  for (const auto& text : options_.seeds) {
    if (Status s = CheckSeedUrl(text); !s.ok()) return InvalidArgumentError("seed " + s.message());
    auto url = Url::Parse(text);
    url->ClearFragment();
    scope.seed_hosts.emplace_back(url->hostname());
    seeds.push_back(std::move(*url));
  }
  if (seeds.empty()) return InvalidArgumentError("no seed URLs given");
  scope.allow_domains = options_.allow_domains;
  scope.any_host = options_.scope == "web";
  if (scope.any_host && options_.max_pages_per_domain == 0) {
    spdlog::warn("--scope web without --max-pages-per-domain: one site can fill the frontier");
  }
  scope.max_depth = options_.max_depth;
  scope.max_url_length = options_.max_url_length;
  scope.allow_patterns = options_.allow_patterns;
  scope.deny_patterns = options_.deny_patterns;
  scope.regex_copies = options_.link_threads + 1;  // +1: seeds are admitted on this thread
  auto policy = ScopePolicy::Create(std::move(scope));
  if (!policy.ok()) return policy.status();
  scope_ = std::make_unique<ScopePolicy>(std::move(*policy));

  // State before sockets: an unusable state folder must stop us before we
  // announce anything.
  if (Status s = OpenState(); !s.ok()) return s;
  SocketSettings settings;
  auto socket = MakeSocket(context_, zmq::socket_type::router, settings);
  if (!socket.ok()) return socket.status();
  socket_ = std::move(*socket);
  socket_.set(zmq::sockopt::router_handover, 1);  // a reconnecting fetcher keeps its id
  if (Status s = SecureServerSocket(context_, socket_, options_.bind, options_.security, &zap_); !s.ok()) {
    return s;
  }
  if (Status s = Bind(socket_, options_.bind); !s.ok()) return s;
  spdlog::info("frontier listening endpoint={} seeds={}", options_.bind, seeds.size());
  spdlog::info("frontier memory budget {} MB: seen filter {} MB, store cache {} MB, known-URL "
               "cache {} MB, {} queued URLs in RAM",
               std::max(options_.memory_mb, MemoryBudget::kMinMb), budget_.filter_bytes >> 20,
               budget_.store_bytes >> 20, budget_.known_cache_bytes >> 20, budget_.head_urls);
  if (options_.metrics_port != 0) {
    auto metrics = MetricsServer::Start(options_.metrics_bind, options_.metrics_port);
    if (!metrics.ok()) return metrics.status();
    metrics_ = std::move(*metrics);
    spdlog::info("metrics on http://{}:{}/metrics", options_.metrics_bind, metrics_->port());
  }

  admitter_ = std::make_unique<LinkAdmitter>(*scope_, known_, options_.link_threads);
  if (already_finished_) return Status::Ok();
  AdmissionJob job;
  for (const auto& seed : seeds) job.links.push_back(seed.href());
  AdmissionResult result = admitter_->Admit(job);
  AdmitResult(result);
  return Status::Ok();
}

Status Broker::OpenState() {
  UrlStoreOptions store_options;
  store_options.dir = options_.state_dir;
  store_options.fresh = options_.fresh;
  store_options.cache_bytes = budget_.store_bytes;
  if (options_.state_dir.empty()) {
    // Memory-only crawl: the same store in a folder of its own, deleted on
    // exit, so RAM stays within --memory-mb either way.
    std::string pattern = (getenv("TMPDIR") ? std::string(getenv("TMPDIR")) : "/tmp") +
                          "/zcrawl-frontier-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return UnavailableError("cannot make a temporary folder " + pattern + ": " + strerror(errno));
    }
    store_options.dir = pattern;
    store_options.temporary = true;
    spdlog::warn("no --state folder: the crawl is not saved (working files in {})", pattern);
  }
  auto store = UrlStore::Open(store_options);
  if (!store.ok()) return store.status();
  store_ = std::move(*store);
  seen_ = std::make_unique<SeenSet>(*store_, known_, budget_.filter_bytes, store_->resumed(),
                                    std::strtoull(store_->GetMeta("seen_urls").c_str(), nullptr, 10));
  scheduler_ = std::make_unique<CrawlScheduler>(ToSchedulerOptions(options_), clock_, store_.get());
  scheduler_->set_final_state_handler(
      [this](const UrlRecord& record, UrlState state, const std::string& reason) {
        RecordFinal(record.url, record.origin, record.seq, state, reason, record.attempts);
      });
  if (!store_->resumed()) {
    store_->SetMeta("created_at_ms", std::to_string(clock_.WallMs()));
    std::string seeds;
    for (const auto& seed : options_.seeds) seeds += seed + "\n";
    store_->SetMeta("seeds", seeds);
    return store_->Flush();
  }
  // Resume: the origin records only (one per origin, not per URL); their
  // queues stay on disk until leased.
  Status restored = Status::Ok();
  Status loaded = store_->LoadOrigins([&](StoredOrigin&& origin) {
    if (!restored.ok()) return;
    restored = scheduler_->RestoreOrigin(origin);
    limits_->RestoreOrigin(origin.origin, origin.next_seq - 1);
  });
  if (!loaded.ok()) return loaded;
  if (!restored.ok()) return DataLossError(store_->path() + ": " + restored.message());
  counters_.admitted = limits_->admitted();
  const auto& counts = scheduler_->counts();
  if (store_->GetMeta("finished") == "1") {
    already_finished_ = true;
    finished_ = true;
    spdlog::info("this crawl already finished (state in {}): done={} failed={}; use --fresh to start over",
                 options_.state_dir, counts.done, counts.failed);
    return Status::Ok();
  }
  spdlog::info("resuming crawl from {}: done={} failed={} waiting={} origins={}", options_.state_dir,
               counts.done, counts.failed, counts.waiting, scheduler_->origin_count());
  return Status::Ok();
}

void Broker::RecordFinal(const std::string& url, uint32_t origin_index, uint64_t seq,
                         UrlState state, const std::string& reason, uint32_t attempts) {
  // A queued URL that is done needs no seen write: it was stored as
  // admitted, and its queue entry's removal records that it is done
  // (url_store.h). A failure rewrites it with its reason.
  if (state != UrlState::kDone || seq == 0) {
    SeenEntry entry;
    const UrlKey key = UrlKeyOf(url);
    entry.fingerprint = key.fingerprint;
    entry.site = key.site;
    entry.state = state == UrlState::kDone ? SeenState::kDone : SeenState::kFailed;
    entry.attempts = attempts;
    if (entry.state == SeenState::kFailed) {
      entry.reason = reason;
      entry.url = url;
    }
    store_->StageSeen(entry);
  }
  if (seq != 0) store_->StageDequeued(origin_index, seq);
  scheduler_->RecordedFinal(origin_index, state);
}

void Broker::RecordParent(const std::optional<ParentOutcome>& parent) {
  if (parent) {
    RecordFinal(parent->url, parent->origin_index, parent->seq, parent->state, parent->reason,
                parent->attempts);
  }
}

void Broker::MarkSeen(const std::string& url) {
  const UrlKey key = UrlKeyOf(url);
  std::vector<bool> is_new;
  seen_->ClaimNew({key}, &is_new);
  // Fetched already (it was the target of a redirect): known, never queued.
  if (is_new[0]) store_->StageSeen(SeenEntry{key.fingerprint, key.site, SeenState::kDone, 0, {}, {}});
}

void Broker::CommitState(bool force) {
  // Staged changes are written (and the WAL fsynced) every commit interval,
  // or sooner when the batch grows large; until then the store answers from
  // the batch (seen checks; a queue read writes it first). A write every
  // broker turn measured a few % more frontier CPU per page.
  constexpr size_t kMaxStaged = 50000;
  const int64_t now = clock_.NowMs();
  const bool sync = force || now - last_commit_ms_ >= options_.commit_interval_ms;
  if (!sync && store_->staged() < kMaxStaged) return;
  scheduler_->StageDirtyOrigins();
  if (sync) {
    last_commit_ms_ = now;
    // Sizes the seen filter of a resumed run (an estimate is enough).
    if (store_->staged() > 0) store_->SetMeta("seen_urls", std::to_string(seen_->size()));
  }
  // Forced (the end, a stop): wait until it is on disk; otherwise the
  // store's writer thread applies it while the broker goes on.
  if (Status s = force ? store_->Flush() : store_->Write(sync); !s.ok()) {
    ++state_write_errors_;
    if (now - last_state_error_ms_ >= 5000) {
      last_state_error_ms_ = now;
      spdlog::error("cannot save crawl state (will retry): {}", s.message());
    }
  }
}

void Broker::AdmitResult(AdmissionResult& result) {
  counters_.links_invalid += result.invalid;
  counters_.links_out_of_scope += result.out_of_scope;
  counters_.links_duplicate += result.duplicates;
  known_.Insert(result.refresh);  // keeps URLs linked all the time past a rotation
  std::vector<UrlKey> keys;
  keys.reserve(result.candidates.size());
  for (const CandidateUrl& url : result.candidates) keys.push_back(url.key);
  std::vector<bool> is_new;
  seen_->ClaimNew(keys, &is_new);
  for (size_t i = 0; i < result.candidates.size(); ++i) {
    CandidateUrl& url = result.candidates[i];
    if (!is_new[i]) {
      ++counters_.links_duplicate;
      continue;
    }
    if (std::string_view why = limits_->Admit(url.url, url.origin); !why.empty()) {
      ++counters_.links_over_limit;
      spdlog::debug("over limit url={} reason={}", url.url, why);
      // Seen, so never reconsidered, but not queued.
      store_->StageSeen(SeenEntry{url.key.fingerprint, url.key.site, SeenState::kRefused, 0, {}, {}});
      continue;
    }
    ++counters_.admitted;
    spdlog::debug("admitted url={} depth={}", url.url, url.depth);
    scheduler_->Enqueue(std::move(url.url), url.origin, url.depth);
  }
  RecordParent(result.parent);
}

void Broker::DrainAdmissions() {
  std::vector<AdmissionResult> results;
  admitter_->results().Drain(results);
  for (auto& result : results) {
    AdmitResult(result);
    --pending_admissions_;
  }
}

void Broker::Send(Peer& peer, v1::Envelope& envelope) {
  const std::string bytes = codec_.Encode(envelope);
  Status s = SendToPeer(socket_, peer.identity, bytes);
  if (!s.ok()) {
    spdlog::debug("send failed peer={} error={}", peer.sender_id, s.ToString());
    return;
  }
  peer.last_sent_ms = clock_.NowMs();
}

void Broker::HandleMessage(const std::string& identity, std::string_view payload) {
  auto decoded = EnvelopeCodec::Decode(payload);
  if (!decoded.ok()) {
    ++counters_.malformed_messages;
    spdlog::warn("dropped malformed message bytes={} error={}", payload.size(),
                 decoded.status().message());
    return;
  }
  v1::Envelope& envelope = *decoded;
  const int64_t now = clock_.NowMs();
  auto it = peers_.find(identity);
  const bool is_new = it == peers_.end();
  if (is_new) {
    Peer peer;
    peer.identity = identity;
    peer.sender_id = envelope.sender_id();
    it = peers_.emplace(identity, std::move(peer)).first;
  }
  Peer& peer = it->second;
  peer.last_seen_ms = now;
  spdlog::trace("message peer={} type={}", peer.sender_id, PayloadName(envelope));

  switch (envelope.payload_case()) {
    case v1::Envelope::kReady: {
      const auto& ready = envelope.ready();
      peer.role = ready.role();
      peer.sender_id = envelope.sender_id();
      peer.hostname = ready.hostname();
      peer.pid = ready.pid();
      peer.credit = 0;  // a (re)joining fetcher asks afresh
      spdlog::info("peer joined id={} role={} host={} pid={} threads={}", peer.sender_id,
                   v1::PeerRole_Name(peer.role), peer.hostname, peer.pid, ready.threads());
      v1::Envelope reply;
      if (finished_) {
        reply.mutable_shutdown()->set_reason("crawl finished");
        peer.told_shutdown = true;
      } else {
        reply.mutable_heartbeat();
      }
      Send(peer, reply);
      return;
    }
    case v1::Envelope::kStatusRequest:
      if (is_new) peer.role = v1::PEER_ROLE_CONTROL;
      if (const auto& request = envelope.status_request(); request.set_threads() > 0) {
        for (auto& [id, fetcher] : peers_) {
          if (fetcher.role != v1::PEER_ROLE_FETCHER) continue;
          if (!request.fetcher_id().empty() && fetcher.sender_id != request.fetcher_id()) continue;
          v1::Envelope resize;
          resize.mutable_set_threads()->set_threads(request.set_threads());
          Send(fetcher, resize);
          spdlog::info("operator resizes fetcher={} threads={}", fetcher.sender_id, request.set_threads());
        }
      }
      SendStatus(peer);
      if (is_new) peers_.erase(identity);  // control tools are one-shot
      return;
    default:
      break;
  }

  if (peer.role == v1::PEER_ROLE_UNSPECIFIED) {
    // Typically a peer of a previous frontier run: it must say READY (and
    // so its role) first. Until then it gets no work; a report it sends is
    // still applied, since lease ids are checked anyway.
    v1::Envelope reject;
    reject.mutable_reject()->set_reason("unknown peer: send ready first");
    Send(peer, reject);
    if (!envelope.has_fetch_report() && !envelope.has_goodbye()) return;
  }

  switch (envelope.payload_case()) {
    case v1::Envelope::kHeartbeat:
      if (envelope.heartbeat().has_load()) peer.load = envelope.heartbeat().load();
      break;
    case v1::Envelope::kWorkRequest:
      if (peer.role == v1::PEER_ROLE_FETCHER) {
        peer.credit = std::min(kMaxCredit, peer.credit + envelope.work_request().credit());
      }
      break;
    case v1::Envelope::kFetchReport:
      HandleReport(peer, envelope.fetch_report());
      break;
    case v1::Envelope::kFetchReports:
      for (const auto& report : envelope.fetch_reports().reports()) HandleReport(peer, report);
      break;
    case v1::Envelope::kGoodbye:
      spdlog::info("peer left id={} reason={}", peer.sender_id, envelope.goodbye().reason());
      scheduler_->ReleaseFetcher(peer.identity, /*count_attempt=*/false);
      peers_.erase(identity);
      break;
    default:
      ++counters_.malformed_messages;
      spdlog::warn("unexpected message type={} from={}", PayloadName(envelope), peer.sender_id);
      break;
  }
}

void Broker::HandleReport(Peer& peer, const v1::FetchReport& report) {
  ++counters_.reports;
  Completion completion = scheduler_->Complete(peer.identity, report);
  if (!completion.known_lease) {
    ++counters_.stale_reports;
    spdlog::debug("stale report url={} lease={}", report.url(), report.lease_id());
    return;
  }
  spdlog::debug("report url={} status={} http={} links={}", report.url(),
                v1::FetchStatus_Name(report.status()), report.http_status(), report.links_size());
  // The final URL of a redirect chain is the same page: mark it seen.
  if (!report.final_url().empty() && report.final_url() != report.url()) {
    auto final_url = Url::Parse(report.final_url());
    if (final_url.ok()) {
      final_url->ClearFragment();
      MarkSeen(final_url->href());
    }
  }
  if (options_.follow_sitemaps && !completion.sitemaps.empty()) {
    AdmissionJob sitemaps;
    sitemaps.depth = 1;
    sitemaps.links = std::move(completion.sitemaps);
    counters_.links_reported += sitemaps.links.size();
    ++pending_admissions_;
    admitter_->Submit(std::move(sitemaps));
  }
  std::optional<ParentOutcome> parent;
  if (completion.final_state != UrlState::kWaiting) {
    parent = ParentOutcome{completion.url,          completion.origin_index, completion.seq,
                           completion.final_state, completion.reason,       completion.attempts};
  }
  AdmissionJob job;
  if (completion.follow_links) {
    job.depth = completion.depth + 1;
    job.links.reserve(report.links_size());
    for (const auto& link : report.links()) {
      if (!link.nofollow()) job.links.push_back(link.url());
    }
  }
  counters_.links_reported += job.links.size();
  if (job.links.empty()) {
    RecordParent(parent);
    return;
  }
  job.parent = std::move(parent);
  ++pending_admissions_;
  admitter_->Submit(std::move(job));
}

void Broker::Dispatch() {
  if (finished_) return;
  // Round-robin over fetchers with credit, starting after the last served.
  std::vector<Peer*> order;
  for (auto& [id, peer] : peers_) {
    if (peer.role == v1::PEER_ROLE_FETCHER && peer.credit > 0) order.push_back(&peer);
  }
  if (order.empty()) return;
  std::stable_partition(order.begin(), order.end(),
                        [&](Peer* p) { return p->identity > last_dispatched_; });
  bool progress = true;
  while (progress) {
    progress = false;
    for (Peer* peer : order) {
      if (peer->credit == 0) continue;
      const uint32_t want = std::min(peer->credit, options_.max_batch);
      auto items = scheduler_->Lease(peer->identity, want);
      if (items.empty()) return;  // nothing ready for anyone
      v1::Envelope envelope;
      auto* batch = envelope.mutable_work_batch();
      for (auto& item : items) *batch->add_items() = std::move(item);
      peer->credit -= static_cast<uint32_t>(batch->items_size());
      last_dispatched_ = peer->identity;
      Send(*peer, envelope);
      progress = true;
    }
  }
}

void Broker::Maintain() {
  const int64_t now = clock_.NowMs();
  const int64_t dead_after = options_.heartbeat_ms * options_.liveness;
  for (auto it = peers_.begin(); it != peers_.end();) {
    Peer& peer = it->second;
    if (now - peer.last_seen_ms > dead_after) {
      ++counters_.peers_lost;
      const uint64_t held = scheduler_->leases_of(peer.identity);
      spdlog::warn("peer lost id={} silent_ms={} leases_returned={}", peer.sender_id,
                   now - peer.last_seen_ms, held);
      scheduler_->ReleaseFetcher(peer.identity, /*count_attempt=*/true);
      it = peers_.erase(it);
      continue;
    }
    if (now - peer.last_sent_ms >= options_.heartbeat_ms) {
      v1::Envelope heartbeat;
      heartbeat.mutable_heartbeat();
      Send(peer, heartbeat);
    }
    ++it;
  }
  scheduler_->ExpireLeases();
}

void Broker::AnnounceShutdown(const std::string& reason) {
  for (auto& [id, peer] : peers_) {
    if (peer.told_shutdown) continue;
    v1::Envelope envelope;
    envelope.mutable_shutdown()->set_reason(reason);
    Send(peer, envelope);
    peer.told_shutdown = true;
  }
}

bool Broker::AllFetchersGone() const {
  for (const auto& [id, peer] : peers_) {
    if (peer.role == v1::PEER_ROLE_FETCHER || peer.role == v1::PEER_ROLE_WRITER) return false;
  }
  return true;
}

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
  spdlog::info("{} done={} failed={} waiting={} leased={} seen={} origins={} rate={:.1f}/s",
               final ? "crawl finished" : "progress", c.done, c.failed, c.waiting, c.leased,
               seen_->size(), scheduler_->origin_count(), pages_per_second_);
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
  // What the memory budget bought: the frontier's own peak, and how much of
  // the queues and seen checks went to disk.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const SeenSetCounters& seen = seen_->counters();
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
  const SeenSetCounters& seen = seen_->counters();
  AppendMetric(out, "zcrawl_frontier_seen_checks_total", "counter", "Seen-set checks", seen.checks);
  AppendMetric(out, "zcrawl_frontier_seen_disk_lookups_total", "counter", "Seen checks that asked the store", seen.disk_lookups);
  AppendMetric(out, "zcrawl_frontier_seen_filter_false_positives_total", "counter", "Filter said maybe for a new URL", seen.filter_false_positives);
  AppendMetric(out, "zcrawl_frontier_seen_filter_bytes", "gauge", "Memory of the seen filter", seen_->filter_bytes());
  AppendMetric(out, "zcrawl_frontier_known_cache_bytes", "gauge", "Memory of the known-URL cache", known_.memory_bytes());
  AppendMetric(out, "zcrawl_frontier_store_memory_bytes", "gauge", "Memory of the store (cache, memtables, readers)", store_->memory_bytes());
  AppendMetric(out, "zcrawl_frontier_store_disk_bytes", "gauge", "Bytes of the store on disk", store_->disk_bytes());
  AppendMetric(out, "zcrawl_frontier_queued_in_ram", "gauge", "Queued URLs held in RAM (queue heads)", scheduler_->loaded_urls());
  AppendMetric(out, "zcrawl_frontier_queue_refills_total", "counter", "Queue heads loaded from disk", scheduler_->refills());
  AppendMetric(out, "zcrawl_frontier_state_write_errors_total", "counter", "Failed writes of the crawl state", state_write_errors_);
  AppendMetric(out, "zcrawl_frontier_origins", "gauge", "Origins (politeness slots)", scheduler_->origin_count());
  AppendMetric(out, "zcrawl_frontier_links_reported_total", "counter", "Links reported by fetchers", counters_.links_reported);
  AppendMetric(out, "zcrawl_frontier_links_invalid_total", "counter", "Reported links that did not parse", counters_.links_invalid);
  AppendMetric(out, "zcrawl_frontier_links_out_of_scope_total", "counter", "Links outside the scope", counters_.links_out_of_scope);
  AppendMetric(out, "zcrawl_frontier_links_duplicate_total", "counter", "Links to URLs already known", counters_.links_duplicate);
  AppendMetric(out, "zcrawl_frontier_links_over_limit_total", "counter", "New links refused by a budget", counters_.links_over_limit);
  AppendMetric(out, "zcrawl_frontier_malformed_messages_total", "counter", "Messages dropped as malformed", counters_.malformed_messages);
  AppendMetric(out, "zcrawl_frontier_peers_lost_total", "counter", "Peers declared dead", counters_.peers_lost);
  uint64_t fetchers = 0;
  for (const auto& [id, peer] : peers_) fetchers += peer.role == v1::PEER_ROLE_FETCHER;
  AppendMetric(out, "zcrawl_frontier_fetchers", "gauge", "Connected fetchers", fetchers);
  AppendMetric(out, "zcrawl_frontier_pages_per_second", "gauge", "Recent completion rate", pages_per_second_);
  metrics_->Publish(std::move(out));
}

int Broker::PollTimeoutMs() const {
  const int64_t now = clock_.NowMs();
  int64_t timeout = options_.heartbeat_ms;
  int64_t next = scheduler_->NextLeaseDeadlineMs();
  // A ready URL only matters when some fetcher can take it; otherwise its
  // (past) ready time would make the loop spin. A WorkRequest wakes us.
  bool any_credit = false;
  for (const auto& [id, peer] : peers_) any_credit |= peer.role == v1::PEER_ROLE_FETCHER && peer.credit > 0;
  if (any_credit) next = std::min(next, scheduler_->NextReadyMs());
  if (next != INT64_MAX) timeout = std::min(timeout, std::max<int64_t>(0, next - now));
  return static_cast<int>(std::max<int64_t>(timeout, 0));
}

Status Broker::Run() {
  if (already_finished_) {
    WriteSummary();
    return Status::Ok();
  }
  InboundMessage message;
  while (true) {
    if (ShutdownSignal::Requested()) {
      spdlog::info("frontier stopping on signal {}", ShutdownSignal::SignalNumber());
      AnnounceShutdown("stopped by operator");
      LogProgress(false);
      CommitState(/*force=*/true);
      WriteSummary();
      return Status::Ok();
    }
    zmq::pollitem_t items[] = {
        {socket_.handle(), 0, ZMQ_POLLIN, 0},
        {nullptr, admitter_->results().fd(), ZMQ_POLLIN, 0},
    };
    try {
      zmq::poll(items, 2, std::chrono::milliseconds(PollTimeoutMs()));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      return InternalError(std::string("poll: ") + e.what());
    }
    // Bounded batch per wake-up so admissions and dispatch interleave.
    for (int i = 0; i < 1000; ++i) {
      Status s = ReceiveMessage(socket_, /*from_router=*/true, &message);
      if (s.code() == StatusCode::kNotFound) break;
      if (!s.ok()) {
        ++counters_.malformed_messages;
        spdlog::warn("dropped message error={}", s.message());
        continue;
      }
      HandleMessage(message.identity, message.payload);
    }
    if (items[1].revents & ZMQ_POLLIN) DrainAdmissions();
    Maintain();
    Dispatch();
    CommitState(/*force=*/false);
    PublishMetrics();

    const int64_t now = clock_.NowMs();
    if (now - last_progress_ms_ >= kProgressIntervalMs) LogProgress(false);

    if (!finished_ && scheduler_->Drained() && pending_admissions_ == 0) {
      finished_ = true;
      shutdown_started_ms_ = now;
      store_->SetMeta("finished", "1");
      CommitState(/*force=*/true);
      LogProgress(true);
      AnnounceShutdown("crawl finished");
    }
    if (finished_) {
      AnnounceShutdown("crawl finished");  // peers that joined since
      if (!options_.exit_when_done) continue;
      if (AllFetchersGone() || now - shutdown_started_ms_ > options_.shutdown_grace_ms) {
        WriteSummary();
        return Status::Ok();
      }
    }
  }
}

}  // namespace zcrawl::frontier

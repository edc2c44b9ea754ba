#include "frontier/broker/broker.h"

#include <algorithm>
#include <climits>
#include <cerrno>

#include <spdlog/spdlog.h>

#include "common/process_identity.h"
#include "common/seed_list.h"
#include "common/shutdown_signal.h"
#include "common/url.h"
#include "frontier/admission/network_policy.h"
#include "frontier/store/url_fingerprint.h"
#include "net/socket_security.h"
#include "net/zmq_io.h"

namespace zcrawl::frontier {
namespace {

constexpr int64_t kProgressIntervalMs = 5000;
constexpr uint32_t kMaxCredit = 100000;

std::string MakeSenderId() { return MakeRunId("frontier"); }

}  // namespace

Broker::Broker(const FrontierOptions& options, zmq::context_t& context, const Clock& clock)
    : options_(options),
      context_(context),
      clock_(clock),
      codec_(MakeSenderId()),
      budget_(MemoryBudget::ForMb(options.memory_mb)),
      known_(budget_.known_cache_bytes),
      memory_(budget_, options.memory_mb, known_,
              [this](uint64_t bytes) { return store_->SetCacheCapacity(bytes); }, clock),
      limits_(std::make_unique<AdmissionLimits>(options.limits)),
      peers_(options.link) {}

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
  auto network_policy =
      MakeNetworkPolicy(seeds, options_.allow_private_addresses, options_.allow_networks);
  if (!network_policy.ok()) return network_policy.status();
  network_policy_ = std::move(*network_policy);
  scope.rules = options_.scope_rules;
  scope.any_host = options_.scope == CrawlScope::kWeb;
  if (scope.any_host && options_.limits.max_pages_per_domain == 0) {
    spdlog::warn("--scope web without --max-pages-per-domain: one site can fill the frontier");
  }
  scope.regex_copies = options_.link_threads + 1;  // +1: seeds are admitted on this thread
  auto policy = ScopePolicy::Create(std::move(scope));
  if (!policy.ok()) return policy.status();
  scope_ = std::make_unique<ScopePolicy>(std::move(*policy));

  if (options_.continuous && options_.refetch_max_s < options_.refetch_min_s) {
    return InvalidArgumentError("--refetch-max (" + std::to_string(options_.refetch_max_s) +
                                " s) is shorter than --refetch-min (" + std::to_string(options_.refetch_min_s) + " s)");
  }
  // State before sockets: an unusable state folder must stop us before we
  // announce anything.
  if (Status s = OpenState(); !s.ok()) return s;
  DefineCounters();
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
  spdlog::info("fetchers may reach {}", DescribeNetworkPolicy(network_policy_));
  spdlog::info("frontier memory budget {} MB: seen filter {} MB, store cache {} MB, known-URL "
               "cache {} MB, queue heads {} MB",
               std::max(options_.memory_mb, MemoryBudget::kMinMb), budget_.filter_bytes >> 20,
               budget_.store_bytes >> 20, budget_.known_cache_bytes >> 20, budget_.head_bytes >> 20);
  if (options_.metrics_port != 0) {
    auto metrics = MetricsServer::Start(options_.metrics_bind, options_.metrics_port);
    if (!metrics.ok()) return metrics.status();
    metrics_ = std::move(*metrics);
    spdlog::info("metrics on http://{}:{}/metrics", options_.metrics_bind, metrics_->port());
  }
  if (Status s = StartConsole(); !s.ok()) return s;

  beacon_started_wall_ms_ = clock_.WallMs();
  RefreshBeacon(/*stopped=*/false);
  admitter_ =
      std::make_unique<LinkAdmitter>(*scope_, store_->canonicalizer(), known_, seen_.get(), options_.link_threads);
  if (already_finished_) return Status::Ok();
  AdmissionJob job;
  for (const auto& seed : seeds) job.links.push_back(seed.href());
  AdmissionResult result = admitter_->Admit(job);
  AdmitResult(result);
  return LoadRecrawlList();
}

bool Broker::Send(Peer& peer, v1::Envelope& envelope) {
  const std::string bytes = codec_.Encode(envelope);
  Status s = SendToPeer(socket_, peer.identity, bytes);
  if (!s.ok()) {
    ++counters_.sends_failed;
    const int64_t now = clock_.NowMs();
    if (now - last_send_error_ms_ >= 5000) {  // a peer gone mid-crawl fails every send
      last_send_error_ms_ = now;
      spdlog::warn("cannot send {} to peer={} ({} failed sends so far): {}", PayloadName(envelope),
                   peer.sender_id, counters_.sends_failed, s.message());
    }
    return false;
  }
  peer.liveness.Sent(clock_.NowMs());
  return true;
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
  bool is_new = false;
  Peer& peer = peers_.Heard(identity, envelope.sender_id(), now, &is_new);
  spdlog::trace("message peer={} type={} sequence={}", peer.sender_id, PayloadName(envelope),
                envelope.sequence());

  switch (envelope.payload_case()) {
    case v1::Envelope::kReady:
      HandleReady(peer, envelope);
      return;
    case v1::Envelope::kStatusRequest:
      if (is_new) peer.role = v1::PEER_ROLE_CONTROL;
      HandleStatusRequest(peer, envelope.status_request());
      if (is_new) peers_.Remove(identity);  // control tools are one-shot
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
      if (peer.role == v1::PEER_ROLE_WRITER && envelope.heartbeat().has_writer_state()) {
        SetSpaceWait(SpaceWait::Source::kWriter, envelope.heartbeat().writer_state().waiting_for_space());
        writer_state_ = envelope.heartbeat().writer_state();
        writer_heard_ms_ = clock_.NowMs();
      }
      break;
    case v1::Envelope::kWorkRequest:
      if (peer.role == v1::PEER_ROLE_FETCHER) {
        peer.credit = std::min(kMaxCredit, peer.credit + envelope.work_request().credit());
      }
      break;
    case v1::Envelope::kFetchReport:
      HandleReport(peer, *envelope.mutable_fetch_report());
      break;
    case v1::Envelope::kFetchReports:
      for (auto& report : *envelope.mutable_fetch_reports()->mutable_reports()) HandleReport(peer, report);
      break;
    case v1::Envelope::kGoodbye:
      spdlog::info("peer left id={} reason={}", peer.sender_id, envelope.goodbye().reason());
      if (peer.role == v1::PEER_ROLE_WRITER) SetSpaceWait(SpaceWait::Source::kWriter, "");
      scheduler_->ReleaseFetcher(peer.identity, /*count_attempt=*/false);
      peers_.Remove(identity);
      break;
    default:
      ++counters_.malformed_messages;
      spdlog::warn("unexpected message type={} from={}", PayloadName(envelope), peer.sender_id);
      break;
  }
}

void Broker::HandleReady(Peer& peer, const v1::Envelope& envelope) {
  const auto& ready = envelope.ready();
  const bool rejoined = peer.role == v1::PEER_ROLE_FETCHER && ready.role() == v1::PEER_ROLE_FETCHER;
  peer.role = ready.role();
  peer.sender_id = envelope.sender_id();
  peer.hostname = ready.hostname();
  peer.pid = ready.pid();
  peer.credit = 0;  // a (re)joining fetcher asks afresh
  if (rejoined) {
    // A fetcher that reconnected: it keeps what it still holds; the rest
    // goes back now rather than at its lease expiry.
    const std::unordered_set<uint64_t> held(ready.held_lease_ids().begin(), ready.held_lease_ids().end());
    const uint64_t returned = scheduler_->ReturnLeasesNotHeld(peer.identity, held);
    counters_.leases_not_held += returned;
    ++counters_.peers_rejoined;
    spdlog::info("peer rejoined id={} leases_kept={} leases_returned={}", peer.sender_id,
                 scheduler_->leases_of(peer.identity), returned);
  } else {
    ++counters_.peers_joined;
    spdlog::info("peer joined id={} role={} host={} pid={} threads={}", peer.sender_id,
                 v1::PeerRole_Name(peer.role), peer.hostname, peer.pid, ready.threads());
  }
  v1::Envelope reply;
  if (finished_) {
    reply.mutable_shutdown()->set_reason("crawl finished");
    peer.told_shutdown = true;
  } else {
    auto* heartbeat = reply.mutable_heartbeat();
    // Before any work on this connection: what its transfers may reach.
    if (peer.role == v1::PEER_ROLE_FETCHER) *heartbeat->mutable_network_policy() = network_policy_;
  }
  Send(peer, reply);
  // An operator's thread count holds for fetchers that join later too.
  if (!finished_ && peer.role == v1::PEER_ROLE_FETCHER && controls_.threads() > 0) {
    SendThreads(controls_.threads(), peer.sender_id);
  }
}

void Broker::HandleReport(Peer& peer, v1::FetchReport& report) {
  ++counters_.reports;
  counters_.bytes_fetched += report.body_bytes();
  Completion completion = scheduler_->Complete(peer.identity, report);
  if (completion.known_lease) ++peer.completed;
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
    sitemaps.links.assign(std::make_move_iterator(completion.sitemaps.begin()),
                          std::make_move_iterator(completion.sitemaps.end()));
    counters_.links_reported += sitemaps.links.size();
    ++pending_admissions_;
    admitter_->Submit(std::move(sitemaps));
  }
  std::optional<ParentOutcome> parent;
  if (completion.final_state != UrlState::kWaiting) {
    parent = ParentOutcome{completion.url,          completion.origin_index, completion.seq,
                           completion.final_state, completion.reason,       completion.attempts,
                           PlanRefetch(completion, report)};
  }
  AdmissionJob job;
  if (completion.follow_links) {
    // A redirect's target (and the "moved here" links of its body) is the
    // same page one step on, not a link further down: it keeps the depth,
    // as it did when redirects were followed within the fetch.
    const bool redirect = report.http_status() >= 300 && report.http_status() < 400 &&
                          std::any_of(report.links().begin(), report.links().end(),
                                      [](const v1::Link& link) { return link.redirect_hops() > 0; });
    job.depth = completion.depth + (redirect ? 0 : 1);
    job.parent_embed_hops = completion.embed_hops;
    job.links.reserve(report.links_size());
    for (auto& link : *report.mutable_links()) {
      // A requisite outside the scope is never followed: only what it
      // embeds (a stylesheet's references) is considered.
      if (link.nofollow() || (completion.embed_hops > 0 && !link.embed())) continue;
      // Moved, not copied: the report is read no further.
      job.links.emplace_back(std::move(*link.mutable_url()), link.redirect_hops(), link.embed());
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

uint64_t Broker::OriginStateBytes() const {
  return (scheduler_ ? scheduler_->origins().bytes() : 0) + limits_->memory_bytes();
}

void Broker::Maintain() {
  const int64_t now = clock_.NowMs();
  // Lease deadlines are not moved for the frontier's own stall (they are
  // far longer than a peer's liveness).
  PeerTable::LivenessCheck check = peers_.CheckLiveness(now);
  if (check.stalled_ms > 0) {
    ++counters_.own_stalls;
    spdlog::warn("frontier stood still for {} ms; its peers' silence meanwhile is not counted",
                 check.stalled_ms);
  }
  for (const Peer& peer : check.lost) {
    ++counters_.peers_lost;
    const uint64_t held = scheduler_->leases_of(peer.identity);
    spdlog::warn("peer lost id={} silent_ms={} leases_returned={}", peer.sender_id,
                 peer.liveness.silent_ms(now), held);
    scheduler_->ReleaseFetcher(peer.identity, /*count_attempt=*/true);
    // A writer that is gone waits for nothing; a new one says its state.
    if (peer.role == v1::PEER_ROLE_WRITER) SetSpaceWait(SpaceWait::Source::kWriter, "");
  }
  for (Peer* peer : check.heartbeat_due) {
    v1::Envelope heartbeat;
    heartbeat.mutable_heartbeat();
    Send(*peer, heartbeat);
  }
  if (!space_wait_.waiting()) scheduler_->ExpireLeases();
}

void Broker::SetSpaceWait(SpaceWait::Source source, const std::string& detail) {
  const int64_t now = clock_.NowMs();
  // The wait is over: the leases held through it get a full lease time.
  if (space_wait_.Set(source, detail, now)) scheduler_->RenewLeases();
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

int Broker::PollTimeoutMs() const {
  const int64_t now = clock_.NowMs();
  int64_t timeout = options_.link.heartbeat_ms;
  // While waiting for space nothing is dispatched and no lease expires:
  // only messages (the writer's state among them) and heartbeats matter.
  if (space_wait_.waiting()) return static_cast<int>(timeout);
  int64_t next = scheduler_->NextLeaseDeadlineMs();
  // A ready URL only matters when some fetcher can take it; otherwise its
  // (past) ready time would make the loop spin. A WorkRequest wakes us.
  bool any_credit = false;
  for (const auto& [id, peer] : peers_) {
    if (peer.role != v1::PEER_ROLE_FETCHER || peer.credit == 0) continue;
    if (peer.dispatch_after_ms > now) {
      next = std::min(next, peer.dispatch_after_ms);
    } else {
      any_credit = true;
    }
  }
  if (any_credit) next = std::min(next, scheduler_->NextReadyMs());
  next = std::min(next, NextRefetchMs());
  if (next != INT64_MAX) timeout = std::min(timeout, std::max<int64_t>(0, next - now));
  return static_cast<int>(std::max<int64_t>(timeout, 0));
}

Status Broker::Run() {
  if (already_finished_) {
    WriteSummary();
    return Status::Ok();
  }
  bool done = false;
  while (!done) {
    if (Status s = Step(options_.link.heartbeat_ms, &done); !s.ok()) return s;
  }
  RefreshBeacon(/*stopped=*/true);
  return Status::Ok();
}

Status Broker::Step(int max_wait_ms, bool* done) {
  *done = false;
  if (ShutdownSignal::Requested() || stop_requested_) {
    if (stop_requested_) {
      spdlog::info("frontier stopping: an operator's stop");
    } else {
      spdlog::info("frontier stopping on signal {}", ShutdownSignal::SignalNumber());
    }
    AnnounceShutdown("stopped by operator");
    LogProgress(false);
    CommitState(/*force=*/true);
    WriteSummary();
    *done = true;
    return Status::Ok();
  }
  zmq::pollitem_t items[] = {
      {socket_.handle(), 0, ZMQ_POLLIN, 0},
      {nullptr, admitter_->results().fd(), ZMQ_POLLIN, 0},
      {nullptr, console_ ? console_->inbox().fd() : -1, ZMQ_POLLIN, 0},  // a viewer's control
  };
  try {
    zmq::poll(items, console_ ? 3 : 2, std::chrono::milliseconds(std::min(max_wait_ms, PollTimeoutMs())));
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return Status::Ok();
    return InternalError(std::string("poll: ") + e.what());
  }
  // Bounded batch per wake-up so admissions and dispatch interleave.
  InboundMessage message;
  ReceiveWaiting(socket_, /*from_router=*/true, 1000, &counters_.malformed_messages, message,
                 [&](InboundMessage& m) {
                   HandleMessage(m.identity, m.payload);
                   return true;
                 });
  if (items[1].revents & ZMQ_POLLIN) DrainAdmissions();
  Maintain();
  memory_.Balance(OriginStateBytes(), scheduler_->origins().loaded_count());
  QueueDueRefetches();
  Dispatch();
  CommitState(/*force=*/false);
  PublishMetrics();
  MaintainConsole(/*controls_waiting=*/console_ && (items[2].revents & ZMQ_POLLIN) != 0);

  const int64_t now = clock_.NowMs();
  if (now - last_progress_ms_ >= kProgressIntervalMs) LogProgress(false);
  if (now - beacon_refreshed_ms_ >= kBeaconRefreshMs) RefreshBeacon(/*stopped=*/false);

  // A continuous crawl ends only when nothing is scheduled either (failed
  // URLs are scheduled too, so in practice it runs until stopped): its
  // schedule is its queue's future.
  if (!finished_ && scheduler_->Drained() && pending_admissions_ == 0 &&
      (!refetch_ || refetch_->next_due_wall_ms() == INT64_MAX)) {
    finished_ = true;
    shutdown_started_ms_ = now;
    store_->SetMeta("finished", "1");
    CommitState(/*force=*/true);
    LogProgress(true);
    AnnounceShutdown("crawl finished");
  }
  if (finished_) {
    AnnounceShutdown("crawl finished");  // peers that joined since
    if (options_.exit_when_done &&
        (!peers_.AnyWorker() || now - shutdown_started_ms_ > options_.shutdown_grace_ms)) {
      WriteSummary();
      *done = true;
    }
  }
  return Status::Ok();
}

}  // namespace zcrawl::frontier

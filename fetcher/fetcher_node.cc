#include "fetcher/fetcher_node.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/process_identity.h"
#include "common/shutdown_signal.h"
#include "fetcher/private_address_guard.h"
#include "fetcher/scan_html_parser.h"
#include "net/zmq_io.h"

namespace zcrawl::fetcher {
namespace {

// Unique per process run, stable across reconnects: the frontier keys
// leases by it.
std::string MakeSenderId() { return MakeRunId("fetcher-" + LocalHostName()); }

uint64_t LeaseIdOfPage(const std::string& page_id) {
  const size_t slash = page_id.rfind('/');
  if (slash == std::string::npos) return 0;
  try {
    return std::stoull(page_id.substr(slash + 1));
  } catch (...) {
    return 0;
  }
}

// The worker's processor, created on first use in each pool thread.
struct ThreadProcessor {
  std::shared_ptr<const void> owner;  // keeps what the processor refers to alive
  std::unique_ptr<PageProcessor> processor;
};
thread_local ThreadProcessor t_processor;

}  // namespace

FetcherNode::FetcherNode(const FetcherOptions& options, zmq::context_t& context, const Clock& clock)
    : options_(options),
      context_(context),
      clock_(clock),
      codec_(MakeSenderId()),
      shared_(std::make_shared<WorkerShared>(options, clock, codec_.sender_id())),
      threads_(options.threads),
      pacer_(options.turn_gap_ms * 1000) {}

FetcherNode::~FetcherNode() { StopWork(); }

FetcherOptions FetcherNode::WithAddressGuard(FetcherOptions options) {
  options.http.address_guard = std::make_shared<PrivateAddressGuard>();
  return options;
}

void FetcherNode::StopWork() {
  // The loop first: its callbacks hand responses to the pool.
  if (loop_) loop_->Stop();
  if (pool_) pool_->Shutdown(ThreadPool::ShutdownMode::kCancel);
}

bool FetcherNode::event_loop() const { return options_.io == FetchIo::kMulti; }

Status FetcherNode::Start() {
  if (!MakeHtmlParser(options_.parser)) {
    return InvalidArgumentError("unknown parser '" + options_.parser + "' (use gumbo or myhtml)");
  }
  shared_->parsers = std::make_shared<HtmlParserPool>(
      [name = options_.parser, text = options_.extract_text, embeds = options_.page_requisites] {
    return MakeHtmlParser(name, HtmlParserOptions{.extract_text = text, .extract_embeds = embeds});
  });
  PeerLinkSettings settings;
  settings.identity = codec_.sender_id();
  settings.timing = options_.link;
  settings.security = options_.security;
  settings.name = "frontier";
  settings.endpoint = options_.frontier;
  settings.server_key_file = options_.security.frontier_key;
  frontier_ = std::make_unique<PeerLink>(context_, settings, codec_, clock_);
  settings.name = "writer";
  settings.endpoint = options_.writer;
  settings.server_key_file = options_.security.writer_key;
  writer_ = std::make_unique<PeerLink>(context_, settings, codec_, clock_);
  if (Status s = frontier_->Connect(); !s.ok()) return s;
  if (Status s = writer_->Connect(); !s.ok()) return s;

  ThreadPoolOptions pool_options;
  pool_options.threads = event_loop() ? ParseThreads(options_) : options_.threads;
  pool_options.keep_alive_ms = options_.keep_alive_ms;
  pool_options.watchdog_ms = options_.watchdog_ms;
  pool_options.thread_name = event_loop() ? "zc-parse" : "zc-fetch";
  pool_ = std::make_unique<ThreadPool>(pool_options, [shared = shared_](const TaskFailure& failure) {
    // Runs on the supervisor thread: hand the failure to the main loop.
    FetchOutcome outcome;
    outcome.lease_id = std::stoull(failure.label);
    outcome.report.set_lease_id(outcome.lease_id);
    outcome.report.set_status(v1::FETCH_STATUS_WORKER_FAILED);
    outcome.report.set_error(failure.reason);
    shared->outcomes.Push(std::move(outcome));
  });
  if (event_loop()) {
    loop_ = std::make_unique<CurlMultiLoop>(shared_->options.http, threads_);
    if (Status s = loop_->Start(); !s.ok()) return s;
  }
  spdlog::info("fetcher started id={} io={} in_flight={} workers={} frontier={} writer={}",
               codec_.sender_id(), event_loop() ? "multi" : "blocking", threads_, pool_options.threads, options_.frontier,
               options_.writer);
  SayReady(*frontier_);
  SayReady(*writer_);
  return Status::Ok();
}

void FetcherNode::SayReady(PeerLink& link) {
  v1::Envelope envelope;
  auto* ready = envelope.mutable_ready();
  ready->set_role(v1::PEER_ROLE_FETCHER);
  ready->set_threads(threads_);
  ready->set_hostname(LocalHostName());
  ready->set_pid(static_cast<uint32_t>(getpid()));
  if (&link == frontier_.get()) {
    // What we still work on; the frontier returns our other leases at once.
    ready->mutable_held_lease_ids()->Reserve(static_cast<int>(held_.size()));
    for (const auto& [lease_id, held] : held_) ready->add_held_lease_ids(lease_id);
  }
  link.Send(envelope).IgnoreError();
  if (&link == frontier_.get()) outstanding_credit_ = 0;
}

v1::Envelope FetcherNode::HeartbeatEnvelope() const {
  v1::Envelope envelope;
  auto* load = envelope.mutable_heartbeat()->mutable_load();
  load->set_target_workers(threads_);
  load->set_live_workers(static_cast<uint32_t>(pool_->live_threads()));
  load->set_idle_workers(static_cast<uint32_t>(pool_->idle_threads()));
  load->set_queued(static_cast<uint32_t>(pool_->queued() + (loop_ ? loop_->queued() : 0)));
  load->set_in_flight(static_cast<uint32_t>(held_.size()));
  if (loop_) load->set_transfers(static_cast<uint32_t>(loop_->in_flight()));
  return envelope;
}

PageProcessor& FetcherNode::ThreadProcessor(const std::shared_ptr<WorkerShared>& shared) {
  if (t_processor.owner != shared) {
    t_processor.processor.reset();  // before what it refers to may go
    t_processor.owner = shared;
    // With the event loop the workers only parse: no HTTP client of their own.
    const bool event_loop = shared->options.io == FetchIo::kMulti;
    t_processor.processor = std::make_unique<PageProcessor>(
        shared->options, event_loop ? nullptr : MakeCurlHttpClient(shared->options.http), shared->parsers,
        shared->clock, &shared->writer_wants);
  }
  return *t_processor.processor;
}

void FetcherNode::FailItem(uint64_t lease_id, std::string reason) {
  FetchOutcome outcome;
  outcome.lease_id = lease_id;
  outcome.report.set_lease_id(lease_id);
  outcome.report.set_status(v1::FETCH_STATUS_WORKER_FAILED);
  outcome.report.set_error(std::move(reason));
  shared_->outcomes.Push(std::move(outcome));
}

void FetcherNode::StartItem(const v1::WorkItem& item) {
  const std::string label = std::to_string(item.lease_id());
  if (!loop_) {
    // Blocking I/O: a worker fetches and then parses.
    const bool queued = pool_->Submit(label, [shared = shared_, item] {
      shared->outcomes.Push(ThreadProcessor(shared).Process(item, shared->sender_id));
    });
    if (!queued) FailItem(item.lease_id(), "worker pool refused the task");
    return;
  }
  // Event loop: the loop fetches; the response goes to a worker to parse.
  const int64_t started = clock_.NowMs();
  const bool submitted =
      loop_->Submit(PageProcessor::RequestFor(item), [this, item, label, started](HttpResponse response) {
        // Runs on the loop's thread: hand over and return.
        const auto fetch_ms = static_cast<uint32_t>(clock_.NowMs() - started);
        bool queued = false;
        try {
          auto shared = std::make_shared<HttpResponse>(std::move(response));
          queued = pool_->Submit(label, [worker = shared_, item, shared, fetch_ms] {
            worker->outcomes.Push(
                ThreadProcessor(worker).Complete(item, worker->sender_id, std::move(*shared), fetch_ms));
          });
        } catch (const std::exception&) {
          // Out of memory: the URL goes back, its slot is freed.
        }
        if (!queued) FailItem(item.lease_id(), "worker pool refused the task");
      });
  if (!submitted) FailItem(item.lease_id(), "fetch loop refused the request");
}

void FetcherNode::RequestWork() {
  if (shutdown_received_) return;
  // Not before the writer first answered: until then nothing fetched could
  // be handed over, and its answer says what to add to every page
  // (WriterWants), the first one included.
  if (writer_sender_id_.empty()) return;
  const uint32_t capacity = threads_ + options_.prefetch;
  const uint64_t committed = held_.size() + outstanding_credit_;
  if (committed >= capacity) return;
  const uint32_t want = capacity - static_cast<uint32_t>(committed);
  // Ask in chunks, not one URL at a time, to keep messages few.
  if (want < std::max<uint32_t>(1, capacity / 4) && outstanding_credit_ > 0) return;
  v1::Envelope envelope;
  envelope.mutable_work_request()->set_credit(want);
  if (frontier_->Send(envelope).ok()) outstanding_credit_ += want;
}

void FetcherNode::HandleFrontier(const v1::Envelope& envelope) {
  switch (envelope.payload_case()) {
    case v1::Envelope::kWorkBatch: {
      const auto& items = envelope.work_batch().items();
      outstanding_credit_ -= std::min<uint32_t>(outstanding_credit_, items.size());
      for (const auto& item : items) {
        if (held_.count(item.lease_id())) continue;  // duplicate delivery
        Held& held = held_[item.lease_id()];
        held.item = item;
        spdlog::debug("leased url={} lease={} attempt={}", item.url(), item.lease_id(), item.attempt());
        StartItem(item);
      }
      break;
    }
    case v1::Envelope::kShutdown:
      spdlog::info("frontier says shutdown reason={}", envelope.shutdown().reason());
      if (!shutdown_received_) shutdown_received_ms_ = clock_.NowMs();
      shutdown_received_ = true;
      break;
    case v1::Envelope::kReject:
      // The frontier does not know us (it restarted): introduce ourselves
      // again; our old leases are void there, so forget the credit.
      spdlog::info("frontier asked us to re-register: {}", envelope.reject().reason());
      shutdown_received_ = false;  // a new frontier (or crawl) wants us: work again
      SayReady(*frontier_);
      break;
    case v1::Envelope::kHeartbeat:
      // The frontier's answer to our Ready: which non-public addresses this
      // crawl may reach. It comes before any work on the same connection.
      if (envelope.heartbeat().has_network_policy()) {
        shared_->options.http.address_guard->Set(envelope.heartbeat().network_policy());
      }
      break;
    case v1::Envelope::kSetThreads: {
      const uint32_t threads = std::clamp<uint32_t>(envelope.set_threads().threads(), 1, kMaxThreads);
      spdlog::info("resizing the fetch concurrency from {} to {}", threads_, threads);
      threads_ = threads;
      // Queued work is kept; credit follows the new size. With the event
      // loop the pool only parses and keeps its size (one per core).
      if (loop_) loop_->SetMaxInFlight(threads);
      else pool_->Resize(threads);
      break;
    }
    default:
      ++counters_.malformed_messages;
      spdlog::warn("unexpected message from frontier type={}", PayloadName(envelope));
  }
}

void FetcherNode::HandleWriter(const v1::Envelope& envelope) {
  if (envelope.sender_id() != writer_sender_id_) {
    // A new writer process (restarted): pages sent to the old one may not
    // be durable. It stores each URL at most once, so resending is safe.
    if (!writer_sender_id_.empty()) ResendPendingPages("writer restarted");
    writer_sender_id_ = envelope.sender_id();
  }
  switch (envelope.payload_case()) {
    case v1::Envelope::kPageAck:
      HandleAck(envelope.page_ack());
      break;
    case v1::Envelope::kPageAcks:
      for (const auto& ack : envelope.page_acks().acks()) HandleAck(ack);
      break;
    case v1::Envelope::kHeartbeat:
      // What the writer wants with each page; workers read it per page.
      shared_->writer_wants.Set(envelope.heartbeat().writer_wants());
      break;
    case v1::Envelope::kReject:
      SayReady(*writer_);
      break;
    default:
      ++counters_.malformed_messages;
      spdlog::warn("unexpected message from writer type={}", PayloadName(envelope));
  }
}

void FetcherNode::HandleAck(const v1::PageAck& ack) {
  auto it = held_.find(LeaseIdOfPage(ack.page_id()));
  if (it == held_.end() || !it->second.at_writer) return;  // late duplicate ack
  v1::FetchReport report = std::move(it->second.outcome.report);
  if (ack.stored()) {
    ++counters_.pages_stored;
  } else {
    ++counters_.writer_failures;
    spdlog::warn("writer could not store url={} error={}", report.url(), ack.error());
    report.set_status(v1::FETCH_STATUS_WRITER_FAILED);
    report.set_error(ack.error());
    report.clear_links();
  }
  held_.erase(it);
  SendReport(std::move(report));
}

void FetcherNode::HandleOutcome(FetchOutcome outcome) {
  auto it = held_.find(outcome.lease_id);
  if (it == held_.end()) return;  // e.g. a watchdog report after the real one
  Held& held = it->second;
  if (held.at_writer) return;
  ++counters_.fetched;
  counters_.sitemaps_cut += outcome.sitemap_cut;
  counters_.sitemap_gzip_errors += outcome.sitemap_gzip_error;
  if (outcome.report.status() == v1::FETCH_STATUS_WORKER_FAILED) {
    ++counters_.worker_failures;
    outcome.report.set_url(held.item.url());
    spdlog::warn("worker failed url={} reason={}", held.item.url(), outcome.report.error());
  }
  if (!outcome.page) {
    v1::FetchReport report = std::move(outcome.report);
    held_.erase(it);
    SendReport(std::move(report));
    return;
  }
  held.outcome = std::move(outcome);
  held.at_writer = true;
  SendPageToWriter(held);
}

void FetcherNode::ResendPendingPages(const char* why) {
  size_t n = 0;
  for (auto& [id, held] : held_) {
    if (held.at_writer) {
      SendPageToWriter(held);
      ++n;
    }
  }
  if (n > 0) spdlog::info("resent {} unacknowledged pages to the writer: {}", n, why);
}

void FetcherNode::SendPageToWriter(Held& held) {
  held.sent_to_writer_ms = clock_.NowMs();
  // The page is lent to the envelope for serialising and taken back, kept
  // for a resend: no copy of the body.
  v1::Envelope envelope;
  envelope.mutable_page()->Swap(&*held.outcome.page);
  const Status sent = writer_->Send(envelope);
  envelope.mutable_page()->Swap(&*held.outcome.page);
  if (!sent.ok()) {
    spdlog::debug("page not sent to writer yet url={} error={}", held.item.url(), sent.message());
  }
}

void FetcherNode::SendReport(v1::FetchReport report) {
  pending_reports_.push_back(std::move(report));
}

void FetcherNode::FlushReports() {
  if (pending_reports_.empty()) return;
  v1::Envelope envelope;
  if (pending_reports_.size() == 1) {
    *envelope.mutable_fetch_report() = std::move(pending_reports_.front());
  } else {
    auto* batch = envelope.mutable_fetch_reports()->mutable_reports();
    batch->Reserve(static_cast<int>(pending_reports_.size()));
    for (auto& report : pending_reports_) *batch->Add() = std::move(report);
  }
  const size_t count = pending_reports_.size();
  pending_reports_.clear();
  if (Status s = frontier_->Send(envelope); !s.ok()) {
    // The leases will expire at the frontier and the URLs be fetched again.
    spdlog::warn("{} reports lost error={}", count, s.message());
  }
}

void FetcherNode::Maintain() {
  if (frontier_->PeerSilentTooLong() && frontier_->ReconnectIfDue()) SayReady(*frontier_);
  if (writer_->PeerSilentTooLong() && writer_->ReconnectIfDue()) {
    SayReady(*writer_);
    ResendPendingPages("writer was silent");
  }
  // Safety net: a page unacknowledged for long was lost on the way.
  const int64_t now = clock_.NowMs();
  const int64_t ack_timeout_ms = 2 * options_.link.dead_after_ms();
  for (auto& [id, held] : held_) {
    if (held.at_writer && now - held.sent_to_writer_ms > ack_timeout_ms) {
      spdlog::warn("no ack for url={} after {} ms; resending", held.item.url(), now - held.sent_to_writer_ms);
      SendPageToWriter(held);
    }
  }
  frontier_->HeartbeatIfIdle(HeartbeatEnvelope());
  writer_->HeartbeatIfIdle(HeartbeatEnvelope());
}

void FetcherNode::SayGoodbye(const std::string& reason) {
  v1::Envelope envelope;
  envelope.mutable_goodbye()->set_reason(reason);
  frontier_->Send(envelope).IgnoreError();
  writer_->Send(envelope).IgnoreError();
}

void FetcherNode::PaceTurn() {
  if (loop_) {
    const int64_t wait_us = pacer_.WaitUs(RealClock::SteadyNowUs(), loop_->queued());
    if (wait_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(wait_us));
  }
  pacer_.TurnBegan(RealClock::SteadyNowUs());
}

Status FetcherNode::Run() {
  while (true) {
    PaceTurn();
    bool done = false;
    if (Status s = Step(static_cast<int>(options_.link.heartbeat_ms / 2), &done); !s.ok()) return s;
    if (done) return Status::Ok();
  }
}

Status FetcherNode::Step(int max_wait_ms, bool* done) {
  *done = false;
  if (ShutdownSignal::Requested()) {
    spdlog::info("fetcher stopping on signal; {} URLs held go back to the frontier", held_.size());
    SayGoodbye("stopped by signal");
    StopWork();
    *done = true;
    return Status::Ok();
  }
  if (loop_ && loop_->failed()) {
    // Its transfers will never finish: leave, so the frontier takes the
    // leases back and a supervisor (./run crawl, systemd) restarts us.
    SayGoodbye("fetch loop failed");
    StopWork();
    return InternalError("the fetch loop failed; see the log");
  }
  if (shutdown_received_ && options_.exit_on_shutdown && !held_.empty() &&
      clock_.NowMs() - shutdown_received_ms_ >
          options_.link.dead_after_ms()) {
    spdlog::warn("giving up {} URLs held since the frontier's shutdown; no one takes their reports",
                 held_.size());
    held_.clear();
  }
  if (shutdown_received_ && options_.exit_on_shutdown && held_.empty()) {
    SayGoodbye("crawl finished");
    StopWork();
    spdlog::info(
        "fetcher done fetched={} stored={} worker_failures={} sitemaps_cut={} "
        "sitemap_gzip_errors={} html_without_tree={} html_with_tree={}",
        counters_.fetched, counters_.pages_stored, counters_.worker_failures, counters_.sitemaps_cut,
        counters_.sitemap_gzip_errors, ScanHtmlParser::ProcessTotals().scanned.load(),
        ScanHtmlParser::ProcessTotals().tree.load());
    *done = true;
    return Status::Ok();
  }
  zmq::pollitem_t items[] = {
      {frontier_->socket().handle(), 0, ZMQ_POLLIN, 0},
      {writer_->socket().handle(), 0, ZMQ_POLLIN, 0},
      {nullptr, shared_->outcomes.fd(), ZMQ_POLLIN, 0},
  };
  try {
    zmq::poll(items, 3, std::chrono::milliseconds(max_wait_ms));
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return Status::Ok();
    return InternalError(std::string("poll: ") + e.what());
  }
  struct Source {
    PeerLink* link;
    bool frontier;
  };
  InboundMessage message;
  for (Source source : {Source{frontier_.get(), true}, Source{writer_.get(), false}}) {
    ReceiveWaiting(source.link->socket(), /*from_router=*/false, 1000, &counters_.malformed_messages, message,
                   [&](InboundMessage& m) {
                     auto envelope = EnvelopeCodec::Decode(m.payload);
                     if (!envelope.ok()) {
                       ++counters_.malformed_messages;
                       spdlog::warn("dropped malformed message from {}: {}", source.link->name(),
                                    envelope.status().message());
                       return true;
                     }
                     source.link->MarkSeen();
                     if (source.frontier) HandleFrontier(*envelope);
                     else HandleWriter(*envelope);
                     return true;
                   });
  }
  outcomes_.clear();
  shared_->outcomes.Drain(outcomes_);
  pacer_.Finished(outcomes_.size(), RealClock::SteadyNowUs());
  for (auto& outcome : outcomes_) HandleOutcome(std::move(outcome));
  // Everything this turn learned goes to the frontier in one message.
  FlushReports();
  Maintain();
  RequestWork();
  return Status::Ok();
}

}  // namespace zcrawl::fetcher

#include "writer/writer_node.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <spdlog/spdlog.h>

#include "common/process_identity.h"
#include "common/sha1.h"
#include "common/shutdown_signal.h"
#include "net/socket_security.h"
#include "net/zmq_io.h"
#include "warc/compressed_warc_blocks.h"

namespace zcrawl::writer {

WriterNode::WriterNode(const WriterOptions& options, zmq::context_t& context, const Clock& clock,
                       std::vector<std::unique_ptr<Sink>> sinks)
    : options_(options),
      context_(context),
      clock_(clock),
      codec_(MakeRunId("writer")),
      sinks_(std::move(sinks)),
      wants_(sinks_.Wants()),
      output_space_(options.sink.out_dir, options.min_free_mb, clock) {
  DefineCounters();
}

void WriterNode::DefineCounters() {
  constexpr CounterKind kCounter = CounterKind::kCounter;
  CounterRegistry& r = registry_;
  // In the summary's order; the metrics and the status reply take theirs
  // from it too.
  r.Add({.summary_key = "stored", .metric = "zcrawl_writer_pages_stored_total", .kind = kCounter,
         .help = "Pages made durable", .status = StatusField(&v1::StatusReply::set_pages_stored),
         .read = [this] { return counters_.pages_stored; }});
  r.Add({.summary_key = "duplicates", .metric = "zcrawl_writer_duplicates_total", .kind = kCounter,
         .help = "Pages acknowledged as already stored", .status = StatusField(&v1::StatusReply::set_duplicates),
         .read = [this] { return counters_.duplicates; }});
  r.Add({.summary_key = "bytes", .metric = "zcrawl_writer_bytes_stored_total", .kind = kCounter,
         .help = "Body bytes written", .status = StatusField(&v1::StatusReply::set_bytes_stored),
         .read = [this] { return counters_.bytes_stored; }});
  r.Add({.summary_key = "revisits", .kind = kCounter, .help = "Revisit records written for unchanged payloads",
         .read = [this] { return sinks_.dedup_counts().revisits; }});
  r.Add({.summary_key = "revisit_bytes_saved", .kind = kCounter, .help = "Payload bytes the revisit records left out",
         .read = [this] { return sinks_.dedup_counts().bytes_saved; }});
  r.Add({.metric = "zcrawl_writer_write_errors_total", .kind = kCounter, .help = "Failed writes or flushes",
         .read = [this] { return counters_.write_errors; }});
  r.Add({.summary_key = "flushes", .metric = "zcrawl_writer_flushes_total", .kind = kCounter, .help = "Group commits",
         .read = [this] { return counters_.flushes; }});
  r.Add({.summary_key = "fetcher_warc_blocks", .metric = "zcrawl_writer_fetcher_warc_blocks_total", .kind = kCounter,
         .help = "Pages written that came with WARC blocks compressed by their fetcher",
         .read = [this] { return counters_.fetcher_warc_blocks; }});
  r.Add({.summary_key = "bodies_omitted", .metric = "zcrawl_writer_bodies_omitted_total", .kind = kCounter,
         .help = "Pages that came without their body (no sink reads bodies)",
         .read = [this] { return counters_.bodies_omitted; }});
  r.Add({.summary_key = "bodies_restored", .metric = "zcrawl_writer_bodies_restored_total", .kind = kCounter,
         .help = "Pages sent without their body whose body a sink needed, inflated from the WARC block",
         .read = [this] { return counters_.bodies_restored; }});
  r.Add({.summary_key = "malformed_messages", .metric = "zcrawl_writer_malformed_messages_total", .kind = kCounter, .help = "Messages dropped as malformed",
         .status = StatusField(&v1::StatusReply::set_malformed_messages),
         .read = [this] { return counters_.malformed_messages; }});
  r.Add({.metric = "zcrawl_writer_waiting_for_space", .kind = CounterKind::kGauge,
         .help = "1 while the writer waits for disk space",
         .read = [this] { return uint64_t{waiting_for_space_.empty() ? 0u : 1u}; }});
  r.Add({.summary_key = "space_waits", .metric = "zcrawl_writer_space_waits_total", .kind = kCounter, .help = "Times the writer ran out of space",
         .read = [this] { return counters_.space_waits; }});
  r.Add({.summary_key = "pages_deferred", .metric = "zcrawl_writer_pages_deferred_total", .kind = kCounter,
         .help = "Pages left to their fetchers while out of space", .read = [this] { return counters_.pages_deferred; }});
  r.Add({.summary_key = "frontier_lost", .metric = "zcrawl_writer_frontier_lost_total", .kind = kCounter,
         .help = "Times the frontier went silent past liveness x heartbeat",
         .read = [this] { return counters_.frontier_lost; }});
  r.Add({.summary_key = "curve_clients_rejected", .metric = "zcrawl_writer_curve_clients_rejected_total",
         .kind = kCounter, .help = "CURVE handshakes refused: a key not on --curve-allow",
         .read = [this] { return zap_ ? zap_->rejected() : 0; }});
}

WriterNode::~WriterNode() { CloseSinks().IgnoreError(); }

Status WriterNode::Start() {
  // Opens the sinks and learns what earlier runs stored.
  if (Status s = sinks_.Open(); !s.ok()) return s;
  auto socket = MakeSocket(context_, zmq::socket_type::router);
  if (!socket.ok()) return socket.status();
  socket_ = std::move(*socket);
  socket_.set(zmq::sockopt::router_handover, 1);
  if (Status s = SecureServerSocket(context_, socket_, options_.bind, options_.security, &zap_); !s.ok()) {
    return s;
  }
  if (Status s = Bind(socket_, options_.bind); !s.ok()) return s;
  if (!options_.frontier.empty()) {
    PeerLinkSettings settings;
    settings.name = "frontier";
    settings.endpoint = options_.frontier;
    settings.identity = codec_.sender_id();
    settings.timing = options_.link;
    settings.security = options_.security;
    settings.server_key_file = options_.security.frontier_key;
    frontier_ = std::make_unique<PeerLink>(context_, settings, codec_, clock_);
    if (Status s = frontier_->Connect(); !s.ok()) return s;
    SayReadyToFrontier();
  }
  if (options_.metrics_port != 0) {
    auto metrics = MetricsServer::Start(options_.metrics_bind, options_.metrics_port);
    if (!metrics.ok()) return metrics.status();
    metrics_ = std::move(*metrics);
  }
  spdlog::info("writer listening endpoint={} formats={} out={}", options_.bind, sinks_.names(),
               options_.sink.out_dir);
  return Status::Ok();
}

void WriterNode::SayReadyToFrontier() {
  v1::Envelope envelope;
  envelope.mutable_ready()->set_role(v1::PEER_ROLE_WRITER);
  envelope.mutable_ready()->set_pid(static_cast<uint32_t>(getpid()));
  frontier_->Send(envelope).IgnoreError();  // unanswered: the liveness check retries
}

v1::Envelope WriterNode::FrontierHeartbeat() const {
  v1::Envelope heartbeat;
  v1::WriterState* state = heartbeat.mutable_heartbeat()->mutable_writer_state();
  state->set_waiting_for_space(waiting_for_space_);
  state->set_pages_stored(counters_.pages_stored);
  state->set_bytes_stored(counters_.bytes_stored);
  state->set_duplicates(counters_.duplicates);
  struct statvfs disk {};
  if (statvfs(options_.sink.out_dir.c_str(), &disk) == 0) {
    state->set_free_disk_bytes(static_cast<uint64_t>(disk.f_bavail) * disk.f_frsize);
  }
  return heartbeat;
}

void WriterNode::WaitForSpace(const Status& cause) {
  const int64_t now = clock_.NowMs();
  next_space_probe_ms_ = now + kSpaceProbeMs;
  if (!waiting_for_space_.empty()) return;
  ++counters_.space_waits;
  waiting_for_space_ = cause.message();
  waiting_since_ms_ = now;
  spdlog::error("out of space: {}; waiting for space, pages stay with the fetchers (nothing is "
                "lost), one is tried every {} ms",
                waiting_for_space_, kSpaceProbeMs);
  if (frontier_) {
    v1::Envelope state = FrontierHeartbeat();
    frontier_->Send(state).IgnoreError();
  }
}

void WriterNode::SpaceIsBack() {
  if (waiting_for_space_.empty()) return;
  spdlog::warn("space is back after {} ms; storing pages again ({} left to their fetchers meanwhile)",
               clock_.NowMs() - waiting_since_ms_, counters_.pages_deferred);
  waiting_for_space_.clear();
  if (frontier_) {
    v1::Envelope state = FrontierHeartbeat();
    frontier_->Send(state).IgnoreError();
  }
}

bool WriterNode::DeferWhileWaiting() {
  if (waiting_for_space_.empty()) {
    const std::string& shortage = output_space_.Shortage();
    if (shortage.empty()) return false;
    WaitForSpace(ResourceExhaustedError(shortage));
  }
  const int64_t now = clock_.NowMs();
  // One probe a second, and only above the floor.
  if (now < next_space_probe_ms_ || !output_space_.Shortage().empty()) {
    ++counters_.pages_deferred;
    return true;
  }
  next_space_probe_ms_ = now + kSpaceProbeMs;  // this page is the probe
  return false;
}

void WriterNode::Send(const std::string& identity, v1::Envelope& envelope) {
  const std::string bytes = codec_.Encode(envelope);
  if (Status s = SendToPeer(socket_, identity, bytes); !s.ok()) {
    // The fetcher is gone; it will be told nothing and its lease expires.
    spdlog::debug("reply not delivered peer={} error={}", identity, s.message());
  }
}

void WriterNode::Ack(const std::string& identity, const std::string& page_id, bool stored,
                     bool duplicate, const std::string& error) {
  v1::Envelope envelope;
  auto* ack = envelope.mutable_page_ack();
  ack->set_page_id(page_id);
  ack->set_stored(stored);
  ack->set_duplicate(duplicate);
  ack->set_error(error);
  Send(identity, envelope);
}

bool WriterNode::CanStoreWithoutBody(const v1::Page& page) const {
  // No sink reads bodies (what asking fetchers to omit them means), and a
  // WARC sink, if any, has what it needs to store the page from its blocks.
  if (!wants_.omit_body()) return false;
  if (wants_.warc_block_level() == 0) return true;
  return page.body_sha1().size() == kSha1Bytes && IsUsableWarcBlock(page.warc_response());
}

void WriterNode::HandlePage(const std::string& identity, v1::Page&& page) {
  const std::string& key = page.dedup_key().empty() ? page.url() : page.dedup_key();
  if (sinks_.IsStored(key)) {
    ++counters_.duplicates;
    spdlog::debug("duplicate page url={}", page.url());
    Ack(identity, page.page_id(), true, true, "");
    return;
  }
  if (BodyWasOmitted(page)) ++counters_.bodies_omitted;
  if (BodyWasOmitted(page) && !CanStoreWithoutBody(page)) {
    // Sent without its body for a writer that could do without (this one
    // before a restart with other formats, say): inflate it back.
    if (Status s = RestoreOmittedBody(page); !s.ok()) {
      ++counters_.malformed_messages;
      spdlog::warn("page without its body url={}: {}", page.url(), s.message());
      Ack(identity, page.page_id(), false, false, "page without its body: " + s.message());
      return;
    }
    ++counters_.bodies_restored;
  }
  if (DeferWhileWaiting()) return;  // no ack: its fetcher sends it again
  const bool probe = !waiting_for_space_.empty();
  bool wrote = false;
  // The body's size, also when it stayed with the fetcher.
  const size_t body_bytes = page.body().empty() ? page.body_length() : page.body().size();
  const bool fetcher_block = page.has_warc_response();
  // The bulk goes to the sinks; the page (and `key` in it) stays whole.
  if (Status s = sinks_.Write(key, page, TakePayload(page), &wrote); !s.ok()) {
    ++counters_.write_errors;
    if (s.code() == StatusCode::kResourceExhausted) {
      WaitForSpace(s);
      ++counters_.pages_deferred;
      return;  // no ack: its fetcher sends it again
    }
    spdlog::error("cannot write url={}: {}", page.url(), s.message());
    Ack(identity, page.page_id(), false, false, s.message());
    return;
  }
  if (!wrote) {
    // Taken by every sink earlier in this batch; durable when the batch is.
    ++counters_.duplicates;
    pending_.push_back(PendingAck{identity, page.page_id(), key, /*duplicate=*/true});
    return;
  }
  counters_.bytes_stored += body_bytes;
  output_space_.Wrote(body_bytes + 1024);  // the body and its share of index and metadata
  if (fetcher_block) ++counters_.fetcher_warc_blocks;
  pending_.push_back(PendingAck{identity, page.page_id(), key, /*duplicate=*/false, probe});
}

void WriterNode::HandleFetcherMessage(const std::string& identity, std::string_view payload) {
  auto envelope = EnvelopeCodec::Decode(payload);
  if (!envelope.ok()) {
    ++counters_.malformed_messages;
    spdlog::warn("dropped malformed message bytes={} error={}", payload.size(),
                 envelope.status().message());
    return;
  }
  switch (envelope->payload_case()) {
    case v1::Envelope::kPage:
      HandlePage(identity, std::move(*envelope->mutable_page()));
      break;
    case v1::Envelope::kReady:
    case v1::Envelope::kHeartbeat: {
      v1::Envelope reply;
      *reply.mutable_heartbeat()->mutable_writer_wants() = wants_;
      Send(identity, reply);
      break;
    }
    case v1::Envelope::kGoodbye:
      break;
    case v1::Envelope::kStatusRequest: {
      v1::Envelope reply;
      auto* status = reply.mutable_status_reply();
      registry_.FillStatus(*status);
      status->set_waiting_for_space(waiting_for_space_);
      Send(identity, reply);
      break;
    }
    default:
      ++counters_.malformed_messages;
      spdlog::warn("unexpected message type={} from={}", PayloadName(*envelope),
                   envelope->sender_id());
  }
}

void WriterNode::MaintainFrontierLink(InboundMessage& message) {
  while (ReceiveMessage(frontier_->socket(), false, &message).ok()) HandleFrontierMessage(message.payload);
  if (frontier_->PeerSilentTooLong()) {
    if (!frontier_lost_) {
      // Pages are still taken and stored: the fetchers report them to the
      // frontier themselves. Only the writer's own registration is lost.
      ++counters_.frontier_lost;
      frontier_lost_ = true;
      spdlog::warn("frontier lost: silent for more than {} ms; reconnecting",
                   options_.link.dead_after_ms());
    }
    if (frontier_->ReconnectIfDue()) SayReadyToFrontier();
    return;
  }
  if (frontier_->HeartbeatDue()) frontier_->HeartbeatIfIdle(FrontierHeartbeat());
}

void WriterNode::HandleFrontierMessage(std::string_view payload) {
  auto envelope = EnvelopeCodec::Decode(payload);
  if (!envelope.ok()) {
    ++counters_.malformed_messages;
    spdlog::warn("dropped malformed message from the frontier bytes={} error={}", payload.size(),
                 envelope.status().message());
    return;
  }
  frontier_->MarkSeen();
  if (frontier_lost_) {
    frontier_lost_ = false;
    spdlog::info("frontier back sender={}", envelope->sender_id());
  }
  if (envelope->has_shutdown()) {
    spdlog::info("frontier says shutdown reason={}", envelope->shutdown().reason());
    shutdown_received_ = true;
  } else if (envelope->has_reject()) {
    SayReadyToFrontier();
  }
}

void WriterNode::BeginFlush() {
  if (flush_in_flight_ || pending_.empty()) return;
  in_flight_.swap(pending_);
  pending_.clear();
  begin_status_ = sinks_.BeginFlush();
  flush_in_flight_ = true;
  // Sinks that flushed in full already: acknowledge now, not a turn later.
  if (!sinks_.FlushesInBackground()) FinishFlushAndAcknowledge().IgnoreError();
}

Status WriterNode::FlushAndAcknowledge() {
  Status first = FinishFlushAndAcknowledge();
  BeginFlush();
  Status last = FinishFlushAndAcknowledge();
  return first.ok() ? last : first;
}

Status WriterNode::FinishFlushAndAcknowledge() {
  if (!flush_in_flight_) return Status::Ok();
  flush_in_flight_ = false;
  const Status finished = sinks_.FinishFlush();
  const Status flushed = begin_status_.ok() ? finished : begin_status_;
  ++counters_.flushes;
  const bool out_of_space = flushed.code() == StatusCode::kResourceExhausted;
  if (!flushed.ok()) {
    ++counters_.write_errors;
    if (out_of_space) {
      WaitForSpace(flushed);
    } else {
      spdlog::error("flush failed, {} pages not acknowledged as stored: {}", in_flight_.size(),
                    flushed.message());
    }
  }
  // One message per fetcher for the whole group commit, in arrival order:
  // a fetcher then reports the batch to the frontier in one message too.
  std::vector<std::pair<const std::string*, v1::Envelope>> by_fetcher;
  for (const PendingAck& pending : in_flight_) {
    // Stored once every sink holds it, whether or not another sink failed.
    const bool stored = sinks_.IsStored(pending.dedup_key);
    if (stored && !pending.duplicate) {
      ++counters_.pages_stored;
      if (pending.probe) SpaceIsBack();  // written and made durable while waiting: room again
    }
    if (!stored && out_of_space) {
      // Left to its fetcher, which sends it again: a "not stored" answer
      // would make the frontier count a failed attempt.
      ++counters_.pages_deferred;
      continue;
    }
    auto it = std::find_if(by_fetcher.begin(), by_fetcher.end(),
                           [&](const auto& entry) { return *entry.first == pending.identity; });
    if (it == by_fetcher.end()) it = by_fetcher.insert(it, {&pending.identity, v1::Envelope()});
    v1::PageAck* ack = it->second.mutable_page_acks()->add_acks();
    ack->set_page_id(pending.page_id);
    ack->set_stored(stored);
    ack->set_duplicate(pending.duplicate);
    if (!stored) ack->set_error(flushed.ok() ? "not stored by every sink" : flushed.message());
  }
  for (auto& [identity, envelope] : by_fetcher) Send(*identity, envelope);
  in_flight_.clear();
  return flushed;
}

void WriterNode::PublishMetrics() {
  const int64_t now = clock_.NowMs();
  if (!metrics_ || now - last_metrics_ms_ < 1000) return;
  last_metrics_ms_ = now;
  metrics_->Publish(registry_.MetricsText());
}

Status WriterNode::CloseSinks() { return sinks_.Close(); }

Status WriterNode::Run() {
  bool done = false;
  while (!done) {
    if (Status s = Step(static_cast<int>(options_.link.heartbeat_ms / 2), &done); !s.ok()) return s;
  }
  return closed_;
}

void WriterNode::WriteSummary() const {
  if (options_.summary_file.empty()) return;
  std::ofstream out(options_.summary_file, std::ios::trunc);
  out << registry_.SummaryJson() << "\n";
  if (!out.flush()) spdlog::warn("cannot write summary file={}", options_.summary_file);
}

Status WriterNode::Step(int max_wait_ms, bool* done) {
  *done = false;
  InboundMessage message;
  if (ShutdownSignal::Requested() || shutdown_received_) {
    FlushAndAcknowledge().IgnoreError();
    closed_ = CloseSinks();
    if (frontier_) {
      v1::Envelope goodbye;
      goodbye.mutable_goodbye()->set_reason(shutdown_received_ ? "crawl finished" : "stopped by signal");
      frontier_->Send(goodbye).IgnoreError();
    }
    const Sink::DedupCounts dedup = sinks_.dedup_counts();
    spdlog::info("writer done stored={} duplicates={} bytes={} flushes={} fetcher_warc_blocks={} "
                 "bodies_omitted={} bodies_restored={} space_waits={} pages_deferred={} revisits={} "
                 "revisit_bytes_saved={}",
                 counters_.pages_stored, counters_.duplicates, counters_.bytes_stored, counters_.flushes,
                 counters_.fetcher_warc_blocks, counters_.bodies_omitted, counters_.bodies_restored,
                 counters_.space_waits, counters_.pages_deferred, dedup.revisits, dedup.bytes_saved);
    WriteSummary();
    *done = true;
    return Status::Ok();
  }
  std::vector<zmq::pollitem_t> items = {{socket_.handle(), 0, ZMQ_POLLIN, 0}};
  if (frontier_) items.push_back({frontier_->socket().handle(), 0, ZMQ_POLLIN, 0});
  try {
    // With a flush in flight, only look: its acks must not wait for traffic.
    zmq::poll(items.data(), items.size(), std::chrono::milliseconds(flush_in_flight_ ? 0 : max_wait_ms));
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return Status::Ok();
    return InternalError(std::string("poll: ") + e.what());
  }
  // Take what is waiting, up to one batch, then make it durable at once.
  ReceiveWaiting(socket_, /*from_router=*/true, options_.max_batch_pages * 2, &counters_.malformed_messages,
                 message, [&](InboundMessage& m) {
                   HandleFetcherMessage(m.identity, m.payload);
                   // Acknowledge the batch in flight as soon as it is durable, not
                   // only once this batch is taken in: fetchers hold those pages.
                   if (flush_in_flight_ && sinks_.FlushReady()) FinishFlushAndAcknowledge().IgnoreError();
                   return pending_.size() < options_.max_batch_pages;
                 });
  // The batch before this one has been syncing meanwhile.
  FinishFlushAndAcknowledge().IgnoreError();
  BeginFlush();
  PublishMetrics();
  if (frontier_) MaintainFrontierLink(message);
  return Status::Ok();
}

}  // namespace zcrawl::writer

#include "net/peer_link.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "net/socket_security.h"
#include "net/zmq_io.h"

namespace zcrawl {

PeerLink::PeerLink(zmq::context_t& context, PeerLinkSettings settings, EnvelopeCodec& codec,
                   const Clock& clock)
    : context_(context),
      settings_(std::move(settings)),
      codec_(codec),
      clock_(clock),
      backoff_ms_(settings_.timing.reconnect_min_ms) {}

Status PeerLink::Connect() {
  SocketSettings socket_settings;
  socket_settings.identity = settings_.identity;
  auto socket = MakeSocket(context_, zmq::socket_type::dealer, socket_settings);
  if (!socket.ok()) return socket.status();
  socket_ = std::move(*socket);
  // Reconnect quickly after a peer restart, but never faster than 100 ms.
  socket_.set(zmq::sockopt::reconnect_ivl, 100);
  socket_.set(zmq::sockopt::reconnect_ivl_max, static_cast<int>(settings_.timing.reconnect_max_ms));
  if (Status s = SecureClientSocket(socket_, settings_.security, settings_.server_key_file); !s.ok()) {
    return s;
  }
  if (!settings_.server_key_file.empty()) handshakes_.Start(context_, socket_);
  if (Status s = zcrawl::Connect(socket_, settings_.endpoint); !s.ok()) return s;
  const int64_t now = clock_.NowMs();
  last_connect_ms_ = now;
  liveness_.Heard(now);  // grace period before declaring the new peer dead
  return Status::Ok();
}

bool PeerLink::ReconnectIfDue() {
  const int64_t now = clock_.NowMs();
  if (now - last_connect_ms_ < backoff_ms_) return false;
  if (const std::string why = HandshakeDiagnosis(); !why.empty()) {
    spdlog::error("{}; reconnecting backoff_ms={}", why, backoff_ms_);
  } else {
    spdlog::warn("{} silent for {} ms; reconnecting endpoint={} backoff_ms={}", settings_.name,
                 liveness_.silent_ms(now), settings_.endpoint, backoff_ms_);
  }
  backoff_ms_ = std::min(backoff_ms_ * 2, settings_.timing.reconnect_max_ms);
  handshakes_.Stop();
  socket_.close();
  if (Status s = Connect(); !s.ok()) {
    spdlog::error("{} reconnect failed: {}", settings_.name, s.message());
    return false;
  }
  return true;
}

Status PeerLink::Send(v1::Envelope& envelope) {
  Status s = SendFrame(socket_, codec_.EncodeMessage(envelope));
  if (s.ok()) liveness_.Sent(clock_.NowMs());
  return s;
}

void PeerLink::HeartbeatIfIdle(v1::Envelope heartbeat) {
  if (!liveness_.HeartbeatDue(clock_.NowMs(), settings_.timing)) return;
  Send(heartbeat).IgnoreError();  // a full queue means the peer is busy, not gone
}

bool PeerLink::HeartbeatDue() const { return liveness_.HeartbeatDue(clock_.NowMs(), settings_.timing); }

void PeerLink::MarkSeen() {
  liveness_.Heard(clock_.NowMs());
  backoff_ms_ = settings_.timing.reconnect_min_ms;
}

bool PeerLink::PeerSilentTooLong() const {
  return liveness_.Dead(clock_.NowMs(), settings_.timing);
}

}  // namespace zcrawl

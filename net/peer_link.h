// PeerLink: one DEALER connection to a peer that binds (a fetcher's to the
// frontier and to the writer, the writer's to the frontier), with the
// heartbeat protocol's liveness bookkeeping and reconnection with
// exponential backoff: one definition for every process. The peer is dead
// after liveness x heartbeat_ms of silence; the owner then reconnects
// (ReconnectIfDue) and says hello again.
//
// Owned and used by one thread (the process's main loop).
#pragma once

#include <cstdint>
#include <string>
#include <zmq.hpp>

#include "common/clock.h"
#include "common/status.h"
#include "net/envelope_codec.h"
#include "net/handshake_watch.h"
#include "net/liveness_options.h"
#include "net/peer_liveness.h"
#include "net/security_options.h"

namespace zcrawl {

struct PeerLinkSettings {
  std::string name;        // "frontier" or "writer", for logs
  std::string endpoint;
  std::string identity;    // our routing id, stable across reconnects
  LivenessOptions timing;
  SecurityOptions security;
  std::string server_key_file;  // "" = no CURVE
};

class PeerLink {
 public:
  PeerLink(zmq::context_t& context, PeerLinkSettings settings, EnvelopeCodec& codec,
           const Clock& clock);

  Status Connect();
  // Closes the socket and connects a fresh one. Returns false while the
  // backoff period since the last reconnect has not passed.
  bool ReconnectIfDue();

  Status Send(v1::Envelope& envelope);
  // Sends a heartbeat when nothing was sent for one interval.
  void HeartbeatIfIdle(v1::Envelope heartbeat);
  // Whether HeartbeatIfIdle would send now (to build a costly one only then).
  bool HeartbeatDue() const;
  // Any inbound message: the peer is alive; resets the backoff.
  void MarkSeen();
  bool PeerSilentTooLong() const;

  zmq::socket_t& socket() { return socket_; }
  // With CURVE: why no handshake completed since the last connect (the
  // server refused our key, or ours does not fit it); empty otherwise.
  std::string HandshakeDiagnosis() {
    handshakes_.Poll();
    return handshakes_.Diagnosis(settings_.name, settings_.endpoint);
  }
  const std::string& name() const { return settings_.name; }

 private:
  zmq::context_t& context_;
  const PeerLinkSettings settings_;
  EnvelopeCodec& codec_;
  const Clock& clock_;
  zmq::socket_t socket_;
  HandshakeWatch handshakes_;  // with CURVE: refused or completed
  PeerLiveness liveness_;
  int64_t last_connect_ms_ = 0;
  int64_t backoff_ms_;
};

}  // namespace zcrawl

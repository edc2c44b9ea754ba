// PeerLink: one DEALER connection from a fetcher to the frontier or the
// writer, with the liveness bookkeeping of the heartbeat protocol and
// reconnection with exponential backoff.
//
// Owned and used by the fetcher's main thread only.
#pragma once

#include <cstdint>
#include <string>
#include <zmq.hpp>

#include "common/clock.h"
#include "common/envelope_codec.h"
#include "common/security_options.h"
#include "common/status.h"
#include "fetcher/fetcher_options.h"

namespace zcrawl::fetcher {

struct PeerLinkSettings {
  std::string name;        // "frontier" or "writer", for logs
  std::string endpoint;
  std::string identity;    // our routing id, stable across reconnects
  // The defaults are the fetcher's own (FetcherOptions): one definition.
  int64_t heartbeat_ms = FetcherOptions{}.heartbeat_ms;
  uint32_t liveness = FetcherOptions{}.liveness;
  int64_t reconnect_min_ms = FetcherOptions{}.reconnect_min_ms;
  int64_t reconnect_max_ms = FetcherOptions{}.reconnect_max_ms;
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
  // Any inbound message: the peer is alive; resets the backoff.
  void MarkSeen();
  bool PeerSilentTooLong() const;

  zmq::socket_t& socket() { return socket_; }
  const std::string& name() const { return settings_.name; }

 private:
  zmq::context_t& context_;
  const PeerLinkSettings settings_;
  EnvelopeCodec& codec_;
  const Clock& clock_;
  zmq::socket_t socket_;
  int64_t last_seen_ms_ = 0;
  int64_t last_sent_ms_ = 0;
  int64_t last_connect_ms_ = 0;
  int64_t backoff_ms_;
};

}  // namespace zcrawl::fetcher

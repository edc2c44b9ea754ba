// HandshakeWatch: whether a client socket's CURVE handshakes complete, or
// the server refuses them, read from libzmq's socket monitor. A server that
// refuses our key and a server that is down look the same from the
// messages alone (silence); the handshake events tell them apart, so a
// fetcher whose key is not allowed says so and what to check, instead of
// "silent; reconnecting" forever (issue 50 point 6).
//
// Owned and used by the thread that owns the watched socket.
#pragma once

#include <cstdint>
#include <string>
#include <zmq.hpp>

namespace zcrawl {

class HandshakeWatch {
 public:
  HandshakeWatch() = default;
  ~HandshakeWatch() { Stop(); }
  HandshakeWatch(const HandshakeWatch&) = delete;
  HandshakeWatch& operator=(const HandshakeWatch&) = delete;

  // Starts watching `socket` (before it connects); events before are lost.
  void Start(zmq::context_t& context, zmq::socket_t& socket);
  // Stops watching; call before the socket closes.
  void Stop();

  // Reads the events that arrived (never blocks).
  void Poll();
  // Since Start: a handshake completed; handshakes the server refused
  // (its ZAP handler), and the latest ZAP status code (400: not allowed).
  // A server key that does not fit raises no event on our side (the
  // server cannot read our hello and drops it): that stays "silent".
  bool succeeded() const { return succeeded_; }
  uint32_t refused() const { return refused_; }
  uint32_t zap_status() const { return zap_status_; }

  // What to tell the operator when no handshake completed with the
  // server `name` at `endpoint`; empty when nothing failed.
  std::string Diagnosis(const std::string& name, const std::string& endpoint) const;

 private:
  zmq::socket_t* watched_ = nullptr;
  zmq::socket_t monitor_;
  bool succeeded_ = false;
  uint32_t refused_ = 0;
  uint32_t zap_status_ = 0;
};

}  // namespace zcrawl

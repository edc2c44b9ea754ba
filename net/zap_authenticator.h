// ZapAuthenticator: the ZeroMQ authentication handler (ZAP, RFC 27) of a
// process whose sockets are CURVE servers. A CURVE client is let in only if
// its public key is on the allow-list; anyone else fails the handshake and
// can neither send nor receive a single message (so cannot inject URLs or
// pages).
//
// Owns one thread and its REP socket on inproc://zeromq.zap.01 in the given
// context; start it before binding the CURVE server sockets. Counters are
// safe to read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "common/status.h"

namespace zcrawl {

class ZapAuthenticator {
 public:
  static Result<std::unique_ptr<ZapAuthenticator>> Start(zmq::context_t& context,
                                                         std::set<std::string> allowed_public_keys);
  ~ZapAuthenticator();
  ZapAuthenticator(const ZapAuthenticator&) = delete;
  ZapAuthenticator& operator=(const ZapAuthenticator&) = delete;

  uint64_t accepted() const { return accepted_.load(); }
  uint64_t rejected() const { return rejected_.load(); }

 private:
  ZapAuthenticator(zmq::socket_t socket, std::set<std::string> allowed);
  void Run();

  zmq::socket_t socket_;  // used only by thread_ after construction
  const std::set<std::string> allowed_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> rejected_{0};
  std::thread thread_;
};

}  // namespace zcrawl

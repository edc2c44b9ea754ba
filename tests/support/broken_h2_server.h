// BrokenH2Server: a TLS server on a loopback address that negotiates HTTP/2
// (ALPN "h2") and then breaks the protocol in one chosen way, for tests of
// how the fetcher fails on it. It speaks just enough HTTP/2 (RFC 9113) to
// get there: it reads the client's preface and frames, sends its SETTINGS,
// and answers every request with the misbehaviour. Its certificate is
// self-signed, made at start (the client must not verify it).
//
// Thread-safety: counters may be read from any thread.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace zcrawl::testing {

enum class H2Fault {
  kGoawayProtocolError,  // GOAWAY(PROTOCOL_ERROR) as soon as a request comes
  kResetStream,          // RST_STREAM(PROTOCOL_ERROR) on the request's stream
  kBadHeaderBlock,       // a HEADERS frame whose HPACK block cannot be decoded
  kOversizedFrame,       // a frame header announcing 16 MiB, over the peer's limit
  kDataBeforeHeaders,    // DATA on the request's stream before any HEADERS
};

const char* H2FaultName(H2Fault fault);

class BrokenH2Server {
 public:
  // Throws std::runtime_error if it cannot listen or make its certificate.
  BrokenH2Server(const std::string& address, H2Fault fault);
  ~BrokenH2Server();
  BrokenH2Server(const BrokenH2Server&) = delete;
  BrokenH2Server& operator=(const BrokenH2Server&) = delete;

  // "https://ADDRESS:PORT"
  std::string origin() const;
  // TLS connections that chose h2 and sent the HTTP/2 preface.
  uint64_t h2_connections() const { return h2_connections_.load(); }
  // Requests (HEADERS frames) answered with the fault.
  uint64_t faults_sent() const { return faults_sent_.load(); }

 private:
  void AcceptLoop();
  void Serve(int fd);

  const std::string address_;
  const H2Fault fault_;
  SSL_CTX* ctx_ = nullptr;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> h2_connections_{0};
  std::atomic<uint64_t> faults_sent_{0};
  std::thread accept_thread_;
  std::mutex mutex_;
  std::vector<std::thread> connections_;  // guarded by mutex_
};

}  // namespace zcrawl::testing

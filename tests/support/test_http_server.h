// TestHttpServer: a small real HTTP/1.1 server on a loopback address for
// tests: keep-alive, a handler per request, and misbehaviours on demand
// (slow drip, close or reset mid-body, lying Content-Length, endless
// chunked streams, raw non-HTTP answers, delays). It counts requests per path and the
// peak number of requests in progress at once, so tests can check scope and
// politeness from the server's side.
//
// Thread-safety: the handler runs on connection threads concurrently; the
// counters are safe to read from the test thread at any time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace zcrawl::testing {

struct TestRequest {
  std::string method;
  std::string target;  // path and query as sent
  std::map<std::string, std::string> headers;  // lower-cased names
  // The value of header `name` (lower-case), "" when absent.
  std::string Header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct TestResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int delay_ms = 0;              // before the status line
  int drip_bytes_per_second = 0; // >0: send the body this slowly
  bool close_mid_body = false;   // send half the body, then close
  bool content_length_lies = false;  // announce more bytes than sent
  bool content_length_short = false; // announce half the body, send all of it
  bool reset_mid_body = false;       // send half the body, then abort with a TCP RST
  // Sent instead of `body` when set: a large body generated once and
  // shared by every response, not copied per request.
  std::shared_ptr<const std::string> shared_body;
  // >0: Transfer-Encoding: chunked, chunks of this many bytes (of `body`
  // repeated, or 'x'), never ending: until the client gives up or the
  // server stops. endless_chunk_interval_ms paces them.
  int endless_chunk_bytes = 0;
  int endless_chunk_interval_ms = 0;
  // Non-empty: these bytes are the whole answer (no status line or headers
  // added), then the connection closes. For responses that are not HTTP.
  std::string raw;
};

using TestHandler = std::function<TestResponse(const TestRequest&)>;

class TestHttpServer {
 public:
  // `address` like "127.0.0.1"; port 0 picks a free one.
  TestHttpServer(std::string address, TestHandler handler, uint16_t port = 0);
  ~TestHttpServer();
  TestHttpServer(const TestHttpServer&) = delete;
  TestHttpServer& operator=(const TestHttpServer&) = delete;

  // Throws std::runtime_error if it cannot listen.
  void Start();
  void Stop();

  // Runs `write` while no handler runs: for state the handler reads that
  // is set after Start (it needs origin()). The crawler's first request
  // comes later anyway, but only this ordering is visible to
  // ThreadSanitizer.
  template <class Write>
  void Publish(Write&& write) {
    std::unique_lock<std::shared_mutex> gate(handler_gate_);
    write();
  }

  uint16_t port() const { return port_; }
  // "http://ADDRESS:PORT"
  std::string origin() const;

  uint64_t total_requests() const { return total_requests_.load(); }
  // TCP connections accepted so far (keep-alive reuse shows as fewer
  // connections than requests).
  uint64_t connections_accepted() const { return connections_accepted_.load(); }
  uint64_t requests_for(const std::string& target) const;
  std::map<std::string, uint64_t> request_counts() const;
  // Requests that came from the client at `client_address` ("10.0.0.21").
  uint64_t requests_from(const std::string& client_address) const;
  // Most requests in progress at once, each counted from its arrival until
  // its response starts to go out (after the handler's delay).
  int peak_in_progress() const { return peak_in_progress_.load(); }
  // Monotonic ms (steady clock) of the last request served.
  int64_t last_request_ms() const { return last_request_ms_.load(); }

 private:
  void AcceptLoop();
  void ServeConnection(int fd, const std::string& client);
  // Sends `response` (the handler's answer, after its delay).
  void Respond(int fd, const TestResponse& response, bool* keep_alive);

  const std::string address_;
  TestHandler handler_;
  uint16_t port_;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::shared_mutex handler_gate_;  // handlers shared, Publish exclusive
  mutable std::mutex mutex_;
  std::vector<std::thread> connection_threads_;  // guarded by mutex_
  std::vector<int> connection_fds_;              // guarded by mutex_
  std::map<std::string, uint64_t> counts_;       // guarded by mutex_
  std::map<std::string, uint64_t> counts_by_client_;  // guarded by mutex_
  std::atomic<uint64_t> total_requests_{0};
  std::atomic<uint64_t> connections_accepted_{0};
  std::atomic<int> in_progress_{0};
  std::atomic<int> peak_in_progress_{0};
  std::atomic<int64_t> last_request_ms_{0};
};

}  // namespace zcrawl::testing

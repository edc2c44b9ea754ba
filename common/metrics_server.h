// MetricsServer: a minimal HTTP endpoint serving Prometheus text exposition
// (GET /metrics) from a background thread. The owning event loop publishes a
// fresh snapshot now and then (Publish); the server only ever hands out the
// latest snapshot, so it never touches the loop's data.
//
// Thread-safety: Publish from any thread; the server thread reads under a
// mutex. Off unless a port is configured; binds 127.0.0.1 by default.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "common/mutex.h"
#include "common/status.h"

namespace zcrawl {

class MetricsServer {
 public:
  // Listens on address:port (port 0 picks one; see port()).
  static Result<std::unique_ptr<MetricsServer>> Start(const std::string& address, uint16_t port);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  void Publish(std::string text);
  uint16_t port() const { return port_; }

 private:
  MetricsServer(int fd, uint16_t port);
  void Serve();

  const int listen_fd_;
  const uint16_t port_;
  std::atomic<bool> stopping_{false};
  Mutex mutex_;
  std::string text_ GUARDED_BY(mutex_);
  std::thread thread_;
};

// The largest request head the endpoint reads (RFC 9110 asks at least 8000
// bytes of request line to be accepted; a scraper sends a tenth of that).
inline constexpr size_t kMaxRequestHeadBytes = 8192;

// The whole response to the request bytes a client sent before it stopped
// (common/http_request_head.h): GET of any path is answered with
// `metrics_text` (simple scrapers ask for "/" as well as "/metrics"), HEAD
// with its headers alone; another method gets 405, another HTTP major
// version 505, a malformed or cut-off head 400, one over
// kMaxRequestHeadBytes 431. Every answer closes the connection.
std::string AnswerMetricsRequest(std::string_view request, std::string_view metrics_text);

// Appends one metric in exposition format. `type` is "counter" or "gauge";
// `labels` is "" or like `host="a"`.
void AppendMetric(std::string& out, std::string_view name, std::string_view type,
                  std::string_view help, double value, std::string_view labels = "");

}  // namespace zcrawl

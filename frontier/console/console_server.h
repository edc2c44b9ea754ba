// ConsoleServer: the frontier's web console (`--console-port`; issue 50
// point 3) and its JSON API, on HttpService (common/http_service.h):
//   GET  /                 the page (console_page.cc: one file, no external
//                          resources, compiled in)
//   GET  /api/status       the latest snapshot: {"status": StatusReply in
//                          protobuf's JSON mapping, "history": [...], "hosts": [...]}
//   POST /api/control      {"verb": "pause"|"resume"|"block"|..., "target": ...,
//                          "note": ..., ...}: the Control it names, applied by
//                          the broker; answered {"result": ..., "ok": bool}
//   GET  /metrics          the Prometheus text (what --metrics-port serves)
// The broker publishes one snapshot a second while someone looks
// (PublishSnapshot; and one after each control); every viewer reads that
// one, so viewers cost the crawl nothing but the copy of a string. The
// metrics text is published every second (PublishMetrics).
// A control is handed to the broker through `inbox()` (polled next to its
// socket) and answered when the broker has applied and saved it.
//
// Access: on a loopback address nothing is asked. Bound elsewhere every
// request must carry the access token (`Authorization: Bearer TOKEN`, or
// `?token=TOKEN` for the page's first load): generated at the first start,
// kept 0600 in STATE/console.token, printed once. TLS is a reverse proxy's
// (docs/OPERATING.md).
//
// Thread-safety: Publish, inbox().Drain and the answers from the broker
// thread; the handlers on HttpService's threads read under the mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/http_service.h"
#include "common/metrics_server.h"
#include "common/mutex.h"
#include "common/notifying_queue.h"
#include "common/status.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// A control from the console, waiting for the broker.
struct ConsoleControl {
  v1::Control control;
  std::string client;  // the viewer's address, for control.log
  std::shared_ptr<std::promise<std::string>> answer;
};

class ConsoleServer {
 public:
  // Serves on address:port (0 picks a free one). `token_file`: where the
  // access token is kept when the address is not loopback ("" : none).
  static Result<std::unique_ptr<ConsoleServer>> Start(const std::string& address, uint16_t port,
                                                      const std::string& token_file, const Clock& clock);

  // The snapshot every viewer reads (JSON), and the metrics text.
  void PublishSnapshot(std::string snapshot_json);
  void PublishMetrics(std::string metrics_text);
  NotifyingQueue<ConsoleControl>& inbox() { return inbox_; }

  uint16_t port() const { return http_->port(); }
  // When a viewer last asked for anything (the clock's ms; 0: never): the
  // broker builds snapshots only while someone looks.
  int64_t last_request_ms() const { return last_request_ms_.load(std::memory_order_relaxed); }
  // "http://127.0.0.1:PORT/" (with "#token=..." when one is needed: the
  // address printed once at start).
  std::string url(bool with_token) const;

 private:
  ConsoleServer() = default;
  HttpResponse Handle(const HttpRequest& request);
  bool Authorised(const HttpRequest& request) const;
  HttpResponse Control(const HttpRequest& request);

  const Clock* clock_ = nullptr;
  std::atomic<int64_t> last_request_ms_{0};
  std::string address_;
  std::string token_;  // empty on loopback
  NotifyingQueue<ConsoleControl> inbox_;
  Mutex mutex_;
  std::string snapshot_ GUARDED_BY(mutex_) = "{}";
  std::string metrics_ GUARDED_BY(mutex_);
  // Last: stopped (its handlers finished) before what they read goes.
  std::unique_ptr<HttpService> http_;
};

// A control from its JSON form (the console's POST body), or why not.
Result<v1::Control> ControlFromJson(const std::string& body);

}  // namespace zcrawl::frontier

// MetricsServer: Prometheus text exposition (GET /metrics, or any path:
// simple scrapers ask for "/") on HttpService (common/http_service.h,
// libmicrohttpd). The owning event loop publishes a fresh snapshot now and
// then (Publish); a scrape only ever reads the latest snapshot, so it never
// touches the loop's data.
//
// Thread-safety: Publish from any thread; scrapes read under a mutex. Off
// unless a port is configured; binds 127.0.0.1 by default.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/http_service.h"
#include "common/mutex.h"
#include "common/status.h"

namespace zcrawl {

class MetricsServer {
 public:
  // Listens on address:port (port 0 picks one; see port()).
  static Result<std::unique_ptr<MetricsServer>> Start(const std::string& address, uint16_t port);
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  void Publish(std::string text);
  uint16_t port() const { return http_->port(); }

 private:
  MetricsServer() = default;
  HttpResponse Answer(const HttpRequest& request);

  Mutex mutex_;
  std::string text_ GUARDED_BY(mutex_);
  std::unique_ptr<HttpService> http_;  // last: stopped before the text goes
};

// The content type of the exposition format.
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// Appends one metric in exposition format. `type` is "counter" or "gauge";
// `labels` is "" or like `host="a"`.
void AppendMetric(std::string& out, std::string_view name, std::string_view type,
                  std::string_view help, double value, std::string_view labels = "");

}  // namespace zcrawl

#include "common/metrics_server.h"

#include <cstdio>

namespace zcrawl {

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& address, uint16_t port) {
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  auto http = HttpService::Start(address, port, [s = server.get()](const HttpRequest& r) { return s->Answer(r); });
  if (!http.ok()) return http.status();
  server->http_ = std::move(*http);
  return server;
}

void MetricsServer::Publish(std::string text) {
  MutexLock lock(mutex_);
  text_ = std::move(text);
}

HttpResponse MetricsServer::Answer(const HttpRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") {
    return HttpResponse{405, "text/plain; charset=utf-8", "GET or HEAD only\n", {{"Allow", "GET, HEAD"}}};
  }
  MutexLock lock(mutex_);
  return HttpResponse{200, std::string(kMetricsContentType), text_, {}};
}

void AppendMetric(std::string& out, std::string_view name, std::string_view type,
                  std::string_view help, double value, std::string_view labels) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  char buf[64];
  snprintf(buf, sizeof buf, " %.17g\n", value);
  out += buf;
}

}  // namespace zcrawl

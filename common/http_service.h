// HttpService: a small HTTP server on libmicrohttpd (Debian's
// libmicrohttpd12), for the endpoints a process serves to people and
// scrapers: the frontier's metrics and console, the writer's metrics. It
// routes a request by method and path to a handler and answers what the
// handler returns; libmicrohttpd does the protocol, the connection limits
// and the timeouts (a slow or hostile client costs one connection slot
// until its timeout, never a thread of ours).
//
// Handlers run on libmicrohttpd's threads (one per connection, at most
// kMaxConnections): they must only read data published to them under a
// lock (a snapshot), never the owner's loop state.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

struct MHD_Daemon;

namespace zcrawl {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query
  std::map<std::string, std::string> query;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;    // POST, at most kMaxBodyBytes
  std::string client;  // the peer's address
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::map<std::string, std::string> headers;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpService {
 public:
  // Connections served at once; more wait in the listen queue.
  static constexpr unsigned kMaxConnections = 16;
  // A request body past this is refused (413).
  static constexpr size_t kMaxBodyBytes = 1 << 20;

  // Listens on address:port (IPv4 or IPv6 literal; port 0 picks one) and
  // serves `handler` for every request.
  static Result<std::unique_ptr<HttpService>> Start(const std::string& address, uint16_t port, HttpHandler handler);
  ~HttpService();
  HttpService(const HttpService&) = delete;
  HttpService& operator=(const HttpService&) = delete;

  uint16_t port() const { return port_; }

 private:
  HttpService(HttpHandler handler) : handler_(std::move(handler)) {}

  HttpHandler handler_;
  MHD_Daemon* daemon_ = nullptr;
  uint16_t port_ = 0;
  friend struct HttpServiceCallbacks;
};

// An address or host name only this machine reaches (127.0.0.0/8, ::1,
// localhost): a service bound there needs no token, and a Host header
// naming it is no rebinding.
bool IsLoopbackName(std::string_view name);

}  // namespace zcrawl

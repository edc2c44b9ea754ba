#include "common/http_service.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

#include <cctype>
#include <cstring>
#include <exception>

namespace zcrawl {
namespace {

// Seconds an idle or slow connection is kept.
constexpr unsigned kConnectionTimeoutS = 10;

struct ConnectionState {
  std::string body;
  bool too_large = false;
};

MHD_Result CollectValue(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* into = static_cast<std::map<std::string, std::string>*>(cls);
  std::string name = key != nullptr ? key : "";
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  (*into)[name] = value != nullptr ? value : "";
  return MHD_YES;
}

MHD_Result CollectArgument(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* into = static_cast<std::map<std::string, std::string>*>(cls);
  (*into)[key != nullptr ? key : ""] = value != nullptr ? value : "";
  return MHD_YES;
}

std::string ClientOf(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "";
  char text[INET6_ADDRSTRLEN] = {0};
  const sockaddr* addr = info->client_addr;
  if (addr->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, text, sizeof text);
  } else if (addr->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, text, sizeof text);
  }
  return text;
}

}  // namespace

struct HttpServiceCallbacks {
  static MHD_Result Access(void* cls, MHD_Connection* connection, const char* url, const char* method,
                           const char* /*version*/, const char* upload_data, size_t* upload_size, void** con_cls) {
    auto* service = static_cast<HttpService*>(cls);
    if (*con_cls == nullptr) {  // the head has arrived; a body may follow
      *con_cls = new ConnectionState;
      return MHD_YES;
    }
    auto* state = static_cast<ConnectionState*>(*con_cls);
    if (*upload_size != 0) {
      if (state->body.size() + *upload_size > HttpService::kMaxBodyBytes) {
        state->too_large = true;
      } else {
        state->body.append(upload_data, *upload_size);
      }
      *upload_size = 0;
      return MHD_YES;
    }
    HttpResponse response;
    if (state->too_large) {
      response.status = 413;
      response.body = "request body too large\n";
    } else {
      HttpRequest request;
      request.method = method != nullptr ? method : "";
      request.path = url != nullptr ? url : "";
      request.body = std::move(state->body);
      request.client = ClientOf(connection);
      MHD_get_connection_values(connection, MHD_HEADER_KIND, &CollectValue, &request.headers);
      MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &CollectArgument, &request.query);
      try {
        response = service->handler_(request);
      } catch (const std::exception& e) {
        response = HttpResponse{500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n", {}};
      }
      if (request.method == "HEAD") response.body.clear();
    }
    MHD_Response* reply =
        MHD_create_response_from_buffer(response.body.size(), response.body.data(), MHD_RESPMEM_MUST_COPY);
    if (reply == nullptr) return MHD_NO;
    MHD_add_response_header(reply, "Content-Type", response.content_type.c_str());
    MHD_add_response_header(reply, "Cache-Control", "no-store");
    for (const auto& [name, value] : response.headers) MHD_add_response_header(reply, name.c_str(), value.c_str());
    const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(response.status), reply);
    MHD_destroy_response(reply);
    return queued;
  }

  static void Completed(void*, MHD_Connection*, void** con_cls, MHD_RequestTerminationCode) {
    delete static_cast<ConnectionState*>(*con_cls);
    *con_cls = nullptr;
  }
};

Result<std::unique_ptr<HttpService>> HttpService::Start(const std::string& address, uint16_t port,
                                                        HttpHandler handler) {
  sockaddr_in v4{};
  sockaddr_in6 v6{};
  const sockaddr* addr = nullptr;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
  if (inet_pton(AF_INET, address.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    addr = reinterpret_cast<const sockaddr*>(&v4);
  } else if (inet_pton(AF_INET6, address.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    addr = reinterpret_cast<const sockaddr*>(&v6);
    flags |= MHD_USE_IPv6;
  } else {
    return InvalidArgumentError("'" + address + "' is not an IPv4 or IPv6 address");
  }
  std::unique_ptr<HttpService> service(new HttpService(std::move(handler)));
  service->daemon_ = MHD_start_daemon(flags, port, nullptr, nullptr, &HttpServiceCallbacks::Access, service.get(),
                                      MHD_OPTION_SOCK_ADDR, addr, MHD_OPTION_CONNECTION_LIMIT, kMaxConnections,
                                      MHD_OPTION_CONNECTION_TIMEOUT, kConnectionTimeoutS,
                                      MHD_OPTION_NOTIFY_COMPLETED, &HttpServiceCallbacks::Completed, nullptr,
                                      MHD_OPTION_END);
  if (service->daemon_ == nullptr) {
    return UnavailableError("cannot serve HTTP on " + address + ":" + std::to_string(port) +
                            " (in use, or not an address of this machine)");
  }
  const MHD_DaemonInfo* info = MHD_get_daemon_info(service->daemon_, MHD_DAEMON_INFO_BIND_PORT);
  service->port_ = info != nullptr ? info->port : port;
  return service;
}

HttpService::~HttpService() {
  if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
}

bool IsLoopbackName(std::string_view name) {
  return name.starts_with("127.") || name == "::1" || name == "localhost";
}

}  // namespace zcrawl

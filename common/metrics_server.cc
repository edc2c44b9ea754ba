#include "common/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/http_request_head.h"

namespace zcrawl {

namespace {
// A scraper sends its whole head at once; anything slower or larger is
// not a scraper, and the one server thread must not wait on it.
constexpr auto kRequestDeadline = std::chrono::seconds(1);
}  // namespace

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& address, uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return UnavailableError(std::string("metrics socket: ") + std::strerror(errno));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    close(fd);
    return InvalidArgumentError("metrics address '" + address + "' is not an IPv4 address");
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 16) != 0) {
    const std::string message = std::strerror(errno);
    close(fd);
    return UnavailableError("cannot serve metrics on " + address + ":" + std::to_string(port) + ": " + message);
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return std::unique_ptr<MetricsServer>(new MetricsServer(fd, ntohs(addr.sin_port)));
}

MetricsServer::MetricsServer(int fd, uint16_t port) : listen_fd_(fd), port_(port) {
  thread_ = std::thread([this] { Serve(); });
}

MetricsServer::~MetricsServer() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  close(listen_fd_);
}

void MetricsServer::Publish(std::string text) {
  MutexLock lock(mutex_);
  text_ = std::move(text);
}

// Reads the request head from `client` (bounded in size and time) and
// returns what was read; the verdict on it is the caller's.
static std::string ReadRequestHead(int client) {
  std::string request;
  const auto deadline = std::chrono::steady_clock::now() + kRequestDeadline;
  char buf[2048];
  while (request.size() <= kMaxRequestHeadBytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{client, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = recv(client, buf, sizeof buf, 0);
    if (n <= 0) break;
    request.append(buf, static_cast<size_t>(n));
    if (ParseHttpRequestHead(request, kMaxRequestHeadBytes).verdict != HttpRequestHead::Verdict::kIncomplete) break;
  }
  return request;
}

void MetricsServer::Serve() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    const std::string request = ReadRequestHead(client);
    std::string text;
    {
      MutexLock lock(mutex_);
      text = text_;
    }
    const std::string response = AnswerMetricsRequest(request, text);
    const char* data = response.data();
    size_t left = response.size();
    while (left > 0) {
      const ssize_t n = send(client, data, left, MSG_NOSIGNAL);
      if (n <= 0) break;
      data += n;
      left -= static_cast<size_t>(n);
    }
    close(client);
  }
}

std::string AnswerMetricsRequest(std::string_view request, std::string_view metrics_text) {
  const HttpRequestHead head = ParseHttpRequestHead(request, kMaxRequestHeadBytes);
  auto answer = [](std::string_view status, std::string_view extra_headers, std::string_view body,
                   bool send_body) {
    std::string out = "HTTP/1.1 ";
    out += status;
    out += "\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: ";
    out += std::to_string(body.size());
    out += "\r\n";
    out += extra_headers;
    out += "Connection: close\r\n\r\n";
    if (send_body) out += body;
    return out;
  };
  switch (head.verdict) {
    case HttpRequestHead::Verdict::kIncomplete:  // cut off or too slow
    case HttpRequestHead::Verdict::kMalformed:
      return answer("400 Bad Request", "", "bad request\n", true);
    case HttpRequestHead::Verdict::kTooLarge:
      return answer("431 Request Header Fields Too Large", "", "request head too large\n", true);
    case HttpRequestHead::Verdict::kComplete:
      break;
  }
  if (head.version_major != 1) return answer("505 HTTP Version Not Supported", "", "HTTP/1.x only\n", true);
  if (head.method == "GET") return answer("200 OK", "", metrics_text, true);
  if (head.method == "HEAD") return answer("200 OK", "", metrics_text, false);
  return answer("405 Method Not Allowed", "Allow: GET, HEAD\r\n", "GET or HEAD only\n", true);
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

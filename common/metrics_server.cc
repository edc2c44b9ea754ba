#include "common/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace zcrawl {

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

void MetricsServer::Serve() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    // Read the request head (bounded, with a short timeout); any path is
    // answered with the metrics, as simple scrapers expect.
    timeval timeout{1, 0};
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buf[2048];
    (void)recv(client, buf, sizeof buf, 0);
    std::string body;
    {
      MutexLock lock(mutex_);
      body = text_;
    }
    std::string response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
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

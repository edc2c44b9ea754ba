#include "bench/frontier_scale/metrics_scrape.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace zcrawl::bench {
namespace {

// Closes the descriptor on every way out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Waits until `fd` is ready for `events`, or the deadline passes.
bool WaitFor(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, events, 0};
  return poll(&p, 1, static_cast<int>(left.count())) > 0;
}

}  // namespace

Result<Metrics> ScrapeMetrics(uint16_t port, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return UnavailableError(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) return UnavailableError(std::string("connect: ") + std::strerror(errno));
    if (!WaitFor(fd.get(), POLLOUT, deadline)) return DeadlineExceededError("connect timed out");
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) return UnavailableError(std::string("connect: ") + std::strerror(error));
  }
  const std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EAGAIN) {
      if (!WaitFor(fd.get(), POLLOUT, deadline)) return DeadlineExceededError("send timed out");
    } else {
      return UnavailableError(std::string("send: ") + std::strerror(errno));
    }
  }
  std::string response;
  char buffer[16384];
  while (true) {  // the server closes after the body
    const ssize_t n = recv(fd.get(), buffer, sizeof buffer, 0);
    if (n > 0) {
      response.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno == EAGAIN) {
      if (!WaitFor(fd.get(), POLLIN, deadline)) return DeadlineExceededError("metrics read timed out");
    } else {
      return UnavailableError(std::string("recv: ") + std::strerror(errno));
    }
  }
  if (response.compare(0, 12, "HTTP/1.1 200") != 0 && response.compare(0, 12, "HTTP/1.0 200") != 0) {
    return UnavailableError("metrics answered: " + response.substr(0, response.find('\r')));
  }
  const size_t body = response.find("\r\n\r\n");
  if (body == std::string::npos) return UnavailableError("metrics response without a body");
  Metrics metrics = ParsePrometheusText(std::string_view(response).substr(body + 4));
  if (metrics.empty()) return UnavailableError("no metrics published yet");
  return metrics;
}

Result<Metrics> ScrapeFreshMetrics(uint16_t port, int max_wait_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(max_wait_ms);
  Result<Metrics> first = ScrapeMetrics(port, 2000);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    Result<Metrics> now = ScrapeMetrics(port, 2000);
    if (!now.ok()) continue;
    if (!first.ok() || *now != *first) return now;
  }
  return first;
}

Metrics ParsePrometheusText(std::string_view text) {
  Metrics metrics;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty() || line[0] == '#') continue;
    // The key runs to the first space outside braces (label values may
    // hold spaces); the value follows, then maybe a timestamp.
    size_t split = 0;
    int depth = 0;
    bool quoted = false;
    for (; split < line.size(); ++split) {
      const char c = line[split];
      if (quoted) {
        if (c == '\\')
          ++split;
        else if (c == '"')
          quoted = false;
      } else if (c == '"') {
        quoted = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}') {
        --depth;
      } else if (c == ' ' && depth == 0) {
        break;
      }
    }
    if (split == 0 || split >= line.size()) continue;
    const std::string value(line.substr(split + 1));
    char* parsed_end = nullptr;
    const double number = std::strtod(value.c_str(), &parsed_end);
    if (parsed_end == value.c_str()) continue;
    metrics[std::string(line.substr(0, split))] = number;
  }
  return metrics;
}

}  // namespace zcrawl::bench

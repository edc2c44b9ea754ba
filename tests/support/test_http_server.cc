#include "tests/support/test_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace zcrawl::testing {
namespace {

int64_t SteadyMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

bool SendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

}  // namespace

TestHttpServer::TestHttpServer(std::string address, TestHandler handler, uint16_t port)
    : address_(std::move(address)), handler_(std::move(handler)), port_(port) {}

TestHttpServer::~TestHttpServer() { Stop(); }

std::string TestHttpServer::origin() const { return "http://" + address_ + ":" + std::to_string(port_); }

void TestHttpServer::Start() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  if (inet_pton(AF_INET, address_.c_str(), &addr.sin_addr) != 1) {
    throw std::runtime_error("bad address " + address_);
  }
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd_, 256) != 0) {
    throw std::runtime_error("cannot listen on " + address_ + ": " + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

void TestHttpServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (listen_fd_ >= 0) shutdown(listen_fd_, SHUT_RDWR);
  if (accept_thread_.joinable()) accept_thread_.join();
  if (listen_fd_ >= 0) close(listen_fd_);
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int fd : connection_fds_) shutdown(fd, SHUT_RDWR);
    threads.swap(connection_threads_);
  }
  for (auto& t : threads) t.join();
}

void TestHttpServer::AcceptLoop() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof peer;
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    char client[INET6_ADDRSTRLEN] = "";
    if (peer.ss_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&peer)->sin_addr, client, sizeof client);
    } else if (peer.ss_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&peer)->sin6_addr, client, sizeof client);
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      close(fd);
      break;
    }
    connection_fds_.push_back(fd);
    ++connections_accepted_;
    connection_threads_.emplace_back([this, fd, client = std::string(client)] { ServeConnection(fd, client); });
  }
}

void TestHttpServer::ServeConnection(int fd, const std::string& client) {
  std::string buffer;
  char chunk[8192];
  bool keep_alive = true;
  while (keep_alive && !stopping_) {
    size_t header_end;
    while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      pollfd p{fd, POLLIN, 0};
      const int ready = poll(&p, 1, 100);
      if (stopping_) break;
      if (ready <= 0) continue;
      const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) {
        keep_alive = false;
        break;
      }
      buffer.append(chunk, static_cast<size_t>(n));
    }
    if (!keep_alive || stopping_ || header_end == std::string::npos) break;
    TestRequest request;
    const std::string head = buffer.substr(0, header_end);
    buffer.erase(0, header_end + 4);
    size_t line_end = head.find("\r\n");
    const std::string request_line = head.substr(0, line_end);
    const size_t sp1 = request_line.find(' ');
    const size_t sp2 = request_line.find(' ', sp1 + 1);
    request.method = request_line.substr(0, sp1);
    request.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    while (line_end != std::string::npos && line_end < head.size()) {
      const size_t next = head.find("\r\n", line_end + 2);
      const std::string line = head.substr(line_end + 2, next == std::string::npos ? std::string::npos : next - line_end - 2);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(), ::tolower);
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        request.headers[name] = value;
      }
      line_end = next;
    }
    const int now = ++in_progress_;
    int peak = peak_in_progress_.load();
    while (now > peak && !peak_in_progress_.compare_exchange_weak(peak, now)) {
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++counts_[request.target];
      ++counts_by_client_[client];
    }
    ++total_requests_;
    TestResponse response;
    {
      std::shared_lock<std::shared_mutex> gate(handler_gate_);
      response = handler_(request);
    }
    if (response.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(response.delay_ms));
    // Done before the response goes out: once its last byte is sent the
    // client may start its next request while this thread is not yet
    // scheduled again, and counting both would report a concurrency the
    // client never had.
    --in_progress_;
    Respond(fd, response, &keep_alive);
    last_request_ms_ = SteadyMs();
  }
  close(fd);
  std::lock_guard<std::mutex> lock(mutex_);
  connection_fds_.erase(std::remove(connection_fds_.begin(), connection_fds_.end(), fd),
                        connection_fds_.end());
}

void TestHttpServer::Respond(int fd, const TestResponse& response, bool* keep_alive) {
  if (!response.raw.empty()) {
    SendAll(fd, response.raw.data(), response.raw.size());
    *keep_alive = false;
    return;
  }
  const std::string& body = response.shared_body ? *response.shared_body : response.body;
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " + Reason(response.status) + "\r\n";
  bool has_type = false;
  for (const auto& [name, value] : response.headers) {
    head += name + ": " + value + "\r\n";
    if (strcasecmp(name.c_str(), "content-type") == 0) has_type = true;
  }
  if (!has_type) head += "Content-Type: text/html; charset=utf-8\r\n";
  if (response.endless_chunk_bytes > 0) {
    head += "Transfer-Encoding: chunked\r\n\r\n";
    if (!SendAll(fd, head.data(), head.size())) {
      *keep_alive = false;
      return;
    }
    std::string data;
    while (data.size() < static_cast<size_t>(response.endless_chunk_bytes)) {
      data += body.empty() ? std::string("x") : body;
    }
    data.resize(static_cast<size_t>(response.endless_chunk_bytes));
    char size_line[32];
    snprintf(size_line, sizeof size_line, "%zx\r\n", data.size());
    const std::string chunk = size_line + data + "\r\n";
    while (!stopping_ && SendAll(fd, chunk.data(), chunk.size())) {
      if (response.endless_chunk_interval_ms > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(response.endless_chunk_interval_ms));
      }
    }
    *keep_alive = false;
    return;
  }
  size_t announced = body.size() + (response.content_length_lies ? 1000 : 0);
  if (response.content_length_short) announced = body.size() / 2;
  head += "Content-Length: " + std::to_string(announced) + "\r\n\r\n";
  if (!SendAll(fd, head.data(), head.size())) {
    *keep_alive = false;
    return;
  }
  if (response.close_mid_body || response.reset_mid_body) {
    SendAll(fd, body.data(), body.size() / 2);
    if (response.reset_mid_body) {
      // Linger 0: close() (in ServeConnection) sends RST, not FIN.
      linger abort_close{1, 0};
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_close, sizeof abort_close);
    }
    *keep_alive = false;
    return;
  }
  if (response.drip_bytes_per_second > 0) {
    for (char c : body) {
      if (stopping_ || !SendAll(fd, &c, 1)) break;
      std::this_thread::sleep_for(std::chrono::microseconds(1'000'000 / response.drip_bytes_per_second));
    }
    *keep_alive = false;
    return;
  }
  if (!SendAll(fd, body.data(), body.size())) *keep_alive = false;
  if (response.content_length_lies || response.content_length_short) *keep_alive = false;
}

uint64_t TestHttpServer::requests_for(const std::string& target) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = counts_.find(target);
  return it == counts_.end() ? 0 : it->second;
}

uint64_t TestHttpServer::requests_from(const std::string& client_address) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = counts_by_client_.find(client_address);
  return it == counts_by_client_.end() ? 0 : it->second;
}

std::map<std::string, uint64_t> TestHttpServer::request_counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

}  // namespace zcrawl::testing

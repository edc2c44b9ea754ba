#include "tests/support/nxdomain_dns_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace zcrawl::testing {
namespace {

constexpr size_t kHeaderBytes = 12;  // RFC 1035 4.1.1
constexpr uint16_t kFlagResponse = 0x8000;
constexpr uint16_t kFlagRecursionDesired = 0x0100;
constexpr uint16_t kFlagRecursionAvailable = 0x0080;
constexpr uint16_t kRcodeNameError = 3;  // NXDOMAIN

uint16_t Read16(const std::string& bytes, size_t at) {
  return static_cast<uint16_t>((static_cast<uint8_t>(bytes[at]) << 8) | static_cast<uint8_t>(bytes[at + 1]));
}

void Write16(std::string& bytes, size_t at, uint16_t value) {
  bytes[at] = static_cast<char>(value >> 8);
  bytes[at + 1] = static_cast<char>(value & 0xFF);
}

}  // namespace

NxdomainDnsServer::NxdomainDnsServer(const std::string& address) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("dns socket: ") + std::strerror(errno));
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_port = htons(53);
  if (inet_pton(AF_INET, address.c_str(), &local.sin_addr) != 1 ||
      bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    const std::string error = std::strerror(errno);
    close(fd_);
    throw std::runtime_error("dns bind " + address + ":53: " + error);
  }
  thread_ = std::thread([this] { Serve(); });
}

NxdomainDnsServer::~NxdomainDnsServer() {
  stopping_ = true;
  thread_.join();
  close(fd_);
}

std::set<std::string> NxdomainDnsServer::names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return names_;
}

std::string NxdomainDnsServer::Answer(const std::string& query, std::string* name) const {
  if (query.size() < kHeaderBytes) return "";
  const uint16_t flags = Read16(query, 2);
  if ((flags & kFlagResponse) != 0 || Read16(query, 4) != 1) return "";
  // The question: labels up to the root label, then type and class.
  size_t at = kHeaderBytes;
  while (at < query.size() && query[at] != 0) {
    const size_t length = static_cast<uint8_t>(query[at]);
    if (length > 63 || at + 1 + length > query.size()) return "";  // compression has no place here
    if (!name->empty()) name->push_back('.');
    for (size_t i = 0; i < length; ++i) {
      name->push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(query[at + 1 + i]))));
    }
    at += 1 + length;
  }
  if (at + 1 + 4 > query.size()) return "";
  std::string answer = query.substr(0, at + 1 + 4);  // header and question only (no EDNS record)
  Write16(answer, 2,
          kFlagResponse | (flags & kFlagRecursionDesired) | kFlagRecursionAvailable | kRcodeNameError);
  for (size_t count_at : {6, 8, 10}) Write16(answer, count_at, 0);
  return answer;
}

void NxdomainDnsServer::Serve() {
  char buffer[1500];
  while (!stopping_) {
    pollfd readable{fd_, POLLIN, 0};
    if (poll(&readable, 1, 50) <= 0) continue;
    sockaddr_in peer{};
    socklen_t peer_size = sizeof peer;
    const ssize_t n = recvfrom(fd_, buffer, sizeof buffer, 0, reinterpret_cast<sockaddr*>(&peer), &peer_size);
    if (n <= 0) continue;
    std::string name;
    const std::string answer = Answer(std::string(buffer, static_cast<size_t>(n)), &name);
    if (answer.empty()) {
      ++malformed_;
      continue;
    }
    ++queries_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      names_.insert(name);
    }
    sendto(fd_, answer.data(), answer.size(), 0, reinterpret_cast<sockaddr*>(&peer), peer_size);
  }
}

}  // namespace zcrawl::testing

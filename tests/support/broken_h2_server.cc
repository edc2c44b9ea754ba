#include "tests/support/broken_h2_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace zcrawl::testing {
namespace {

// RFC 9113: frame types, flags and error codes used here.
constexpr uint8_t kData = 0x0, kHeaders = 0x1, kRstStream = 0x3, kSettings = 0x4, kGoaway = 0x7;
constexpr uint8_t kFlagAck = 0x1, kFlagEndStream = 0x1, kFlagEndHeaders = 0x4;
constexpr uint32_t kProtocolError = 0x1;
constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr int kPollMs = 100;  // how soon a connection notices the server stopping

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload,
                  uint32_t announced_length = UINT32_MAX) {
  const uint32_t length = announced_length == UINT32_MAX ? static_cast<uint32_t>(payload.size()) : announced_length;
  std::string frame;
  frame.push_back(static_cast<char>(length >> 16));
  frame.push_back(static_cast<char>(length >> 8));
  frame.push_back(static_cast<char>(length));
  frame.push_back(static_cast<char>(type));
  frame.push_back(static_cast<char>(flags));
  for (int shift : {24, 16, 8, 0}) frame.push_back(static_cast<char>((stream >> shift) & 0xFF));
  frame.append(payload);
  return frame;
}

std::string Be32(uint32_t value) {
  std::string out;
  for (int shift : {24, 16, 8, 0}) out.push_back(static_cast<char>((value >> shift) & 0xFF));
  return out;
}

// The bytes that break the protocol for a request on `stream`.
std::string FaultFrames(H2Fault fault, uint32_t stream) {
  switch (fault) {
    case H2Fault::kGoawayProtocolError: return Frame(kGoaway, 0, 0, Be32(0) + Be32(kProtocolError));
    case H2Fault::kResetStream: return Frame(kRstStream, 0, stream, Be32(kProtocolError));
    case H2Fault::kBadHeaderBlock:
      // An indexed field whose index (an HPACK integer of 2^28 and more) is
      // in no table.
      return Frame(kHeaders, kFlagEndHeaders | kFlagEndStream, stream, "\xff\xff\xff\xff\x7f");
    case H2Fault::kOversizedFrame:
      return Frame(kData, 0, stream, std::string(1024, 'x'), /*announced_length=*/0xFFFFFF);
    case H2Fault::kDataBeforeHeaders: return Frame(kData, kFlagEndStream, stream, "no headers first");
  }
  return "";
}

// A fresh P-256 key and a self-signed certificate for `name`, valid a day.
void MakeIdentity(const std::string& name, EVP_PKEY** key, X509** cert) {
  *key = EVP_EC_gen("P-256");
  *cert = X509_new();
  if (!*key || !*cert) throw std::runtime_error("cannot make a test key");
  X509_set_version(*cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(*cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(*cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(*cert), 86400);
  X509_NAME* subject = X509_get_subject_name(*cert);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(name.c_str()),
                             -1, -1, 0);
  X509_set_issuer_name(*cert, subject);
  X509_set_pubkey(*cert, *key);
  if (X509_sign(*cert, *key, EVP_sha256()) == 0) throw std::runtime_error("cannot sign the test certificate");
}

int SelectH2(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
             unsigned int in_length, void*) {
  static const unsigned char kH2[] = {2, 'h', '2'};
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, out_length, kH2, sizeof kH2, in, in_length) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;  // HTTP/2 or nothing: that is what is under test
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

// Reads exactly `n` bytes; false on close, error, or the server stopping.
bool ReadExact(SSL* ssl, char* out, size_t n, const std::atomic<bool>& stopping) {
  size_t got = 0;
  while (got < n) {
    const int r = SSL_read(ssl, out + got, static_cast<int>(n - got));
    if (r > 0) {
      got += static_cast<size_t>(r);
      continue;
    }
    const int error = SSL_get_error(ssl, r);
    const bool timed_out = (error == SSL_ERROR_WANT_READ) ||
                           (error == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EWOULDBLOCK));
    if (!timed_out || stopping) return false;
    ERR_clear_error();
  }
  return true;
}

bool WriteAll(SSL* ssl, std::string_view bytes) {
  return SSL_write(ssl, bytes.data(), static_cast<int>(bytes.size())) == static_cast<int>(bytes.size());
}

}  // namespace

const char* H2FaultName(H2Fault fault) {
  switch (fault) {
    case H2Fault::kGoawayProtocolError: return "goaway";
    case H2Fault::kResetStream: return "rst-stream";
    case H2Fault::kBadHeaderBlock: return "bad-hpack";
    case H2Fault::kOversizedFrame: return "oversized-frame";
    case H2Fault::kDataBeforeHeaders: return "data-before-headers";
  }
  return "?";
}

BrokenH2Server::BrokenH2Server(const std::string& address, H2Fault fault) : address_(address), fault_(fault) {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  MakeIdentity(address, &key, &cert);
  ctx_ = SSL_CTX_new(TLS_server_method());
  const bool ok = ctx_ && SSL_CTX_use_certificate(ctx_, cert) == 1 && SSL_CTX_use_PrivateKey(ctx_, key) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!ok) throw std::runtime_error("cannot set up TLS for the broken HTTP/2 server");
  SSL_CTX_set_alpn_select_cb(ctx_, SelectH2, nullptr);

  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, address.c_str(), &local.sin_addr);
  socklen_t size = sizeof local;
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      listen(listen_fd_, 64) != 0 || getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&local), &size) != 0) {
    throw std::runtime_error("broken HTTP/2 server cannot listen on " + address + ": " + std::strerror(errno));
  }
  port_ = ntohs(local.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

BrokenH2Server::~BrokenH2Server() {
  stopping_ = true;
  accept_thread_.join();
  std::vector<std::thread> connections;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    connections.swap(connections_);
  }
  for (auto& t : connections) t.join();
  close(listen_fd_);
  SSL_CTX_free(ctx_);
}

std::string BrokenH2Server::origin() const { return "https://" + address_ + ":" + std::to_string(port_); }

void BrokenH2Server::AcceptLoop() {
  while (!stopping_) {
    pollfd readable{listen_fd_, POLLIN, 0};
    if (poll(&readable, 1, kPollMs) <= 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    connections_.emplace_back([this, fd] { Serve(fd); });
  }
}

void BrokenH2Server::Serve(int fd) {
  timeval timeout{0, kPollMs * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  SSL* ssl = SSL_new(ctx_);
  SSL_set_fd(ssl, fd);
  const unsigned char* alpn = nullptr;
  unsigned int alpn_length = 0;
  char preface[kPreface.size()];
  bool ok = SSL_accept(ssl) == 1;
  if (ok) SSL_get0_alpn_selected(ssl, &alpn, &alpn_length);
  ok = ok && std::string_view(reinterpret_cast<const char*>(alpn), alpn_length) == "h2" &&
       ReadExact(ssl, preface, sizeof preface, stopping_) &&
       std::string_view(preface, sizeof preface) == kPreface && WriteAll(ssl, Frame(kSettings, 0, 0, ""));
  if (ok) ++h2_connections_;
  // Frames until the client gives up: settings are acknowledged, each
  // request gets the fault.
  char header[9];
  while (ok && ReadExact(ssl, header, sizeof header, stopping_)) {
    const uint32_t length = (static_cast<uint8_t>(header[0]) << 16) | (static_cast<uint8_t>(header[1]) << 8) |
                            static_cast<uint8_t>(header[2]);
    const uint8_t type = static_cast<uint8_t>(header[3]);
    const uint8_t flags = static_cast<uint8_t>(header[4]);
    const uint32_t stream = ((static_cast<uint8_t>(header[5]) & 0x7F) << 24) |
                            (static_cast<uint8_t>(header[6]) << 16) | (static_cast<uint8_t>(header[7]) << 8) |
                            static_cast<uint8_t>(header[8]);
    std::string payload(length, '\0');
    if (length > (1u << 20) || !ReadExact(ssl, payload.data(), length, stopping_)) break;
    if (type == kSettings && (flags & kFlagAck) == 0) ok = WriteAll(ssl, Frame(kSettings, kFlagAck, 0, ""));
    if (type == kHeaders) {  // every request, on a reused connection too
      ++faults_sent_;
      ok = WriteAll(ssl, FaultFrames(fault_, stream));
      if (fault_ == H2Fault::kGoawayProtocolError) break;
    }
  }
  SSL_shutdown(ssl);
  SSL_free(ssl);
  close(fd);
}

}  // namespace zcrawl::testing

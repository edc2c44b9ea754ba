#include "fetcher/curl_transfer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <sys/socket.h>

#include "common/ascii.h"
#include "common/ip_network.h"
#include "common/url.h"
#include "fetcher/charset.h"
#include "fetcher/content_decoder.h"
#include "fetcher/failure_cause.h"
#include "fetcher/private_address_guard.h"

namespace zcrawl::fetcher {
namespace {

bool IsHttpUrl(std::string_view url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.size() >= scheme.size() && EqualsIgnoreCaseAscii(url.substr(0, scheme.size()), scheme)) {
      return true;
    }
  }
  return false;
}

// Longer Retry-After values are absurd: cap them at an hour.
constexpr uint32_t kMaxRetryAfterS = 3600;

// Retry-After: delta-seconds or an HTTP date. Returns ms, 0 if absent/bad.
uint32_t ParseRetryAfterMs(std::string_view value) {
  value = TrimHttpFieldWhitespace(value);
  if (value.empty()) return 0;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (value.size() > 7) return kMaxRetryAfterS * 1000u;
    const unsigned long seconds = std::stoul(std::string(value));
    return static_cast<uint32_t>(std::min<unsigned long>(seconds, kMaxRetryAfterS)) * 1000u;
  }
  const time_t when = curl_getdate(std::string(value).c_str(), nullptr);
  if (when <= 0) return 0;
  const time_t now = time(nullptr);
  if (when <= now) return 0;
  return static_cast<uint32_t>(std::min<time_t>(when - now, kMaxRetryAfterS) * 1000);
}

uint32_t Micros(CURL* curl, CURLINFO info) {
  curl_off_t value = 0;
  if (curl_easy_getinfo(curl, info, &value) != CURLE_OK || value < 0) return 0;
  return static_cast<uint32_t>(std::min<curl_off_t>(value, UINT32_MAX));
}

// A response's header section larger than this ends the fetch
// (headers_too_large): libcurl bounds one header line (100 KiB), not their
// number, and every header is kept for the writer. Real pages send a few KiB.
constexpr size_t kMaxHeaderBytes = 256 * 1024;

// A typical page in one read instead of two (libcurl's default is 16 KiB).
constexpr long kReceiveBufferBytes = 64 * 1024;

}  // namespace

CurlTransfer::CurlTransfer(const HttpOptions& options) : options_(options), curl_(curl_easy_init()) {
  if (curl_) SetFixedOptions();
}

CurlTransfer::~CurlTransfer() {
  if (curl_) curl_easy_cleanup(curl_);
  curl_slist_free_all(resolve_);
  curl_slist_free_all(request_headers_);
}

void CurlTransfer::SetFixedOptions() {
  CURL* c = curl_;
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str());
  // Bodies are decoded here (ContentDecoder says why), not by libcurl.
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ContentDecoder::kAcceptEncoding);
  curl_easy_setopt(c, CURLOPT_HTTP_CONTENT_DECODING, 0L);
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout_ms));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(options_.low_speed_bytes));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                   static_cast<long>(std::max<int64_t>(1, options_.low_speed_ms / 1000)));
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
  if (!options_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, options_.ca_file.c_str());
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, static_cast<long>(options_.max_redirects));
  curl_easy_setopt(c, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, this);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, this);
  if (options_.capture_request_headers) {
    curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, OnDebug);
    curl_easy_setopt(c, CURLOPT_DEBUGDATA, this);
    curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);  // only feeds OnDebug
  }
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_);
  if (options_.address_guard) {
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, OnOpenSocket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, this);
  }
  for (const std::string& entry : options_.resolve) resolve_ = curl_slist_append(resolve_, entry.c_str());
  if (resolve_) curl_easy_setopt(c, CURLOPT_RESOLVE, resolve_);
}

curl_socket_t CurlTransfer::OnOpenSocket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* self = static_cast<CurlTransfer*>(user);
  if (purpose == CURLSOCKTYPE_IPCXN) {
    // The host of the hop being connected: libcurl moves the effective URL
    // to each redirect target it follows before connecting there.
    char* effective = nullptr;
    curl_easy_getinfo(self->curl_, CURLINFO_EFFECTIVE_URL, &effective);
    auto url = Url::Parse(effective ? effective : self->url_);
    const std::string host = url.ok() ? std::string(url->hostname()) : std::string();
    auto ip = IpAddress::FromSockaddr(&address->addr, address->addrlen);
    std::optional<std::string> refusal =
        ip ? self->options_.address_guard->Refusal(*ip, host)
           : std::optional<std::string>("not an IP address (family " + std::to_string(address->family) + ")");
    if (refusal) {
      // libcurl tries the host's next address, if any; Finish reports the
      // refusal only if none connected.
      self->refusal_ = std::move(*refusal);
      return CURL_SOCKET_BAD;
    }
    self->refusal_.clear();  // another address of the host, or the next hop, connects
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

void CurlTransfer::Begin(const HttpRequest& request, HttpResponse* response) {
  request_ = request;
  response_ = response;
  max_body_ = request.max_body_bytes ? request.max_body_bytes : options_.max_body_bytes;
  if (!curl_) {
    response->status = v1::FETCH_STATUS_WORKER_FAILED;
    response->error = "curl_easy_init failed";
    return;
  }
  curl_slist_free_all(request_headers_);
  request_headers_ = nullptr;
  for (const std::string& header : request.headers) request_headers_ = curl_slist_append(request_headers_, header.c_str());
  url_ = request.url;
  HttpResponse& r = *response_;
  r.body.clear();
  r.headers.clear();
  r.location.clear();
  r.request_headers.clear();
  r.body_truncated = false;
  too_large_ = false;
  headers_too_large_ = false;
  header_bytes_ = 0;
  decoder_.reset();
  bad_coding_.clear();
  refusal_.clear();
  error_[0] = '\0';
  curl_easy_setopt(curl_, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, request_headers_);
  curl_easy_setopt(curl_, CURLOPT_FOLLOWLOCATION, request_.follow_any_redirect ? 1L : 0L);
  // Over HTTPS, wait for a connection being set up to the same origin and
  // share it when it turns out to speak HTTP/2, instead of opening one per
  // request that starts meanwhile (a host's first burst opened a connection,
  // and a TLS handshake, per request: issue 51). Plain http stays HTTP/1.1.
  curl_easy_setopt(curl_, CURLOPT_PIPEWAIT, url_.starts_with("https://") ? 1L : 0L);
}

void CurlTransfer::Finish(CURLcode code) {
  decoder_.reset();  // its window and buffers are not kept while the handle idles
  HttpResponse& response = *response_;
  CURL* c = curl_;
  long http = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &http);
  response.http_status = static_cast<uint32_t>(http);
  char* effective = nullptr;
  curl_easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &effective);
  response.final_url = effective ? effective : url_;
  char* ip = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip) response.ip_address = ip;
  long version = 0;
  curl_easy_getinfo(c, CURLINFO_HTTP_VERSION, &version);
  response.http_version = version == CURL_HTTP_VERSION_2_0 ? "HTTP/2"
                          : version == CURL_HTTP_VERSION_1_0 ? "HTTP/1.0"
                                                             : "HTTP/1.1";
  response.timings.set_dns_us(Micros(c, CURLINFO_NAMELOOKUP_TIME_T));
  response.timings.set_connect_us(Micros(c, CURLINFO_CONNECT_TIME_T));
  response.timings.set_tls_us(Micros(c, CURLINFO_APPCONNECT_TIME_T));
  response.timings.set_first_byte_us(Micros(c, CURLINFO_STARTTRANSFER_TIME_T));
  response.timings.set_total_us(Micros(c, CURLINFO_TOTAL_TIME_T));
  char* location = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) {
    response.location = location;
  }
  response.retry_after_ms = ParseRetryAfterMs(FindHeader(response.headers, "retry-after"));

  if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && response.body_truncated)) {
    response.status = v1::FETCH_STATUS_OK;
    response.error.clear();
    EndAtRedirectLimit();
    return;
  }
  if (!refusal_.empty()) {
    // The guard refused every address of the host: no packet was sent.
    response.status = v1::FETCH_STATUS_PRIVATE_ADDRESS;
    response.error = "refused to connect: " + refusal_;
    response.cause = "private_address";
    return;
  }
  if (!bad_coding_.empty()) {
    // Our decoder stopped the transfer: libcurl's own code for what it
    // reported when it decoded.
    code = CURLE_BAD_CONTENT_ENCODING;
    snprintf(error_, sizeof(error_), "%s", bad_coding_.c_str());
  }
  response.error = std::string(curl_easy_strerror(code)) + (error_[0] ? ": " : "") + error_;
  TransferFailure failure;
  failure.code = code;
  curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &failure.os_errno);
  curl_easy_getinfo(c, CURLINFO_SSL_VERIFYRESULT, &failure.tls_verify_result);
  // A request went out: connected (a reused connection reports no connect time).
  long request_bytes = 0;
  failure.connected = curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &request_bytes) == CURLE_OK &&
                      request_bytes > 0;
  failure.detail = error_;
  response.cause = FailureCause(failure);
  // libcurl's own limit on one header line (100 KiB) fails the transfer as
  // out of memory, with no detail: while headers are still coming (no body
  // yet) that is what it means.
  const bool giant_header = code == CURLE_OUT_OF_MEMORY && response.body.empty();
  if (headers_too_large_ || giant_header) {
    response.status = v1::FETCH_STATUS_TOO_LARGE;
    response.error = giant_header ? "a response header line larger than libcurl's limit (100 KiB)"
                                  : "response headers larger than " + std::to_string(kMaxHeaderBytes) + " bytes";
    response.cause = "headers_too_large";
  } else if (too_large_ || code == CURLE_FILESIZE_EXCEEDED) {
    response.status = v1::FETCH_STATUS_TOO_LARGE;
    response.error = "body larger than " + std::to_string(max_body_) + " bytes";
    response.cause = "too_large";
  } else if (code == CURLE_OPERATION_TIMEDOUT) {
    response.status = v1::FETCH_STATUS_TIMEOUT;
  } else if (code == CURLE_TOO_MANY_REDIRECTS) {
    response.status = v1::FETCH_STATUS_REDIRECT_LIMIT;
  } else if (code == CURLE_URL_MALFORMAT || (code == CURLE_UNSUPPORTED_PROTOCOL && !IsHttpUrl(url_))) {
    // CURLE_UNSUPPORTED_PROTOCOL on an http(s) URL means the server's
    // answer was not HTTP at all ("Received HTTP/0.9"): a bad response
    // like CURLE_WEIRD_SERVER_REPLY (network error below), not a bad URL.
    response.status = v1::FETCH_STATUS_INVALID_URL;
  } else {
    response.status = v1::FETCH_STATUS_NETWORK_ERROR;
  }
}

void CurlTransfer::EndAtRedirectLimit() {
  HttpResponse& response = *response_;
  if (request_.follow_any_redirect || response.http_status < 300 || response.http_status >= 400 ||
      response.location.empty()) {
    return;
  }
  // This redirect's target would be one more hop in the chain from the URL
  // first linked (its count travels with the target, WorkItem.redirect_hops).
  if (request_.redirects_before + 1 > options_.max_redirects) {
    response.status = v1::FETCH_STATUS_REDIRECT_LIMIT;
    response.error = "more than " + std::to_string(options_.max_redirects) + " redirects";
    response.cause = "redirect_limit";
  }
}

size_t CurlTransfer::OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<CurlTransfer*>(user);
  const size_t bytes = size * count;
  std::string& body = t->response_->body;
  if (!t->decoder_ && !t->StartBody()) return 0;  // abort the transfer
  if (!t->decoder_->identity()) {
    switch (t->decoder_->Decode(std::string_view(data, bytes), &body, t->max_body_)) {
      case ContentDecoder::Result::kOk: return bytes;
      case ContentDecoder::Result::kFull: return t->EndAtBodyLimit();
      case ContentDecoder::Result::kError:
        t->bad_coding_ = "cannot undo Content-Encoding '" + t->codings_ + "': " + t->decoder_->error();
        return 0;
    }
  }
  if (body.size() + bytes > t->max_body_) {
    body.append(data, t->max_body_ - body.size());
    return t->EndAtBodyLimit();
  }
  body.append(data, bytes);
  return bytes;
}

bool CurlTransfer::StartBody() {
  codings_.clear();
  for (const v1::Header& header : response_->headers) {
    if (!EqualsIgnoreCaseAscii(header.name(), "content-encoding")) continue;
    if (!codings_.empty()) codings_ += ", ";
    codings_ += header.value();
  }
  decoder_ = ContentDecoder::ForCodings(codings_, &bad_coding_);
  if (!decoder_) return false;
  // Size the body once from Content-Length (capped: servers lie) instead
  // of growing it by doubling, which copies an 18 KB page about 4 times.
  // An encoded body is expected to decode to about 4 times its length.
  curl_off_t length = -1;
  if (curl_easy_getinfo(curl_, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK && length > 0) {
    const uint64_t expected = static_cast<uint64_t>(length) * (decoder_->identity() ? 1 : 4);
    response_->body.reserve(static_cast<size_t>(std::min<uint64_t>(expected, max_body_)));
  }
  return true;
}

size_t CurlTransfer::EndAtBodyLimit() {
  if (request_.truncate_body) response_->body_truncated = true;
  else too_large_ = true;
  return 0;  // abort the transfer
}

size_t CurlTransfer::OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<CurlTransfer*>(user);
  const size_t bytes = size * count;
  std::string_view line(data, bytes);
  if (line.starts_with("HTTP/")) {
    // A new response (after a followed redirect or a 1xx): keep only the last.
    t->response_->headers.clear();
    t->header_bytes_ = 0;
    t->decoder_.reset();
    return bytes;
  }
  t->header_bytes_ += bytes;
  if (t->header_bytes_ > kMaxHeaderBytes) {
    t->headers_too_large_ = true;
    return 0;  // abort the transfer
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  // Header bytes need not be UTF-8 (obs-text); proto string fields must be.
  v1::Header& header = t->response_->headers.emplace_back();
  header.set_name(SanitizeUtf8(std::string(TrimHttpFieldWhitespace(line.substr(0, colon)))));
  header.set_value(SanitizeUtf8(std::string(TrimHttpFieldWhitespace(line.substr(colon + 1)))));
  return bytes;
}

// Keeps the request head as sent; the last one is the final request's.
int CurlTransfer::OnDebug(CURL*, curl_infotype type, char* data, size_t size, void* user) {
  if (type == CURLINFO_HEADER_OUT) {
    static_cast<CurlTransfer*>(user)->response_->request_headers = SanitizeUtf8(std::string(data, size));
  }
  return 0;
}

}  // namespace zcrawl::fetcher

// CurlTransfer: a libcurl easy handle and the HTTP exchange running on it,
// the part both ways of driving libcurl share: the blocking client
// (curl_http_client.cc, one transfer per worker thread, curl_easy_perform)
// and the event loop (curl_multi_loop.h, many transfers on one curl_multi).
//
// A transfer is reused request after request, so the handle's settings that
// never change are made once. For each request the driver calls Begin, runs
// the handle once and calls Finish with libcurl's result: the response is
// then final. The response being filled must outlive the request.
//
// Thread-safety: a transfer belongs to one thread at a time.
#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <memory>
#include <string>

#include "fetcher/content_decoder.h"

#include "fetcher/fetcher_options.h"
#include "fetcher/http_client.h"

namespace zcrawl::fetcher {

class CurlTransfer {
 public:
  explicit CurlTransfer(const HttpOptions& options);
  ~CurlTransfer();
  CurlTransfer(const CurlTransfer&) = delete;
  CurlTransfer& operator=(const CurlTransfer&) = delete;

  // False when libcurl could not make a handle; the transfer is unusable.
  bool ok() const { return curl_ != nullptr; }
  CURL* curl() const { return curl_; }

  // Starts a request: sets every per-request option, so nothing carries
  // over from the last request on this handle.
  void Begin(const HttpRequest& request, HttpResponse* response);
  // Reads the outcome of the request that ended with `code` into the
  // response. A redirect ends the fetch (robots.txt's excepted: libcurl
  // follows those): its target goes to the frontier as a link, whose claim
  // fetches it once however many URLs lead to it. Followed here, a page
  // also linked directly was fetched and stored twice (issue 51's web
  // bench: 636 of 10,000 pages). One past max_redirects in the chain is
  // REDIRECT_LIMIT instead.
  void Finish(CURLcode code);

 private:
  void EndAtRedirectLimit();
  // At a response's first body bytes: its decoder (false: a coding it
  // cannot undo) and the body's room.
  bool StartBody();
  // The body reached max_body_: truncated if the request allows, too large
  // otherwise. Returns 0, libcurl's signal to abort the transfer.
  size_t EndAtBodyLimit();
  void SetFixedOptions();
  static size_t OnBody(char* data, size_t size, size_t count, void* user);
  static size_t OnHeader(char* data, size_t size, size_t count, void* user);
  static int OnDebug(CURL*, curl_infotype type, char* data, size_t size, void* user);
  // libcurl's socket opener: asks the address guard about every address
  // libcurl is about to connect to (after DNS, on every hop).
  static curl_socket_t OnOpenSocket(void* user, curlsocktype purpose, curl_sockaddr* address);

  const HttpOptions& options_;
  CURL* curl_;
  HttpRequest request_;
  HttpResponse* response_ = nullptr;
  std::string url_;     // of the request
  uint64_t max_body_ = 0;
  bool too_large_ = false;
  bool headers_too_large_ = false;
  size_t header_bytes_ = 0;  // of the current response's header section
  std::unique_ptr<ContentDecoder> decoder_;  // of the current response, from its first body bytes
  std::string codings_;  // the current response's Content-Encoding, joined
  std::string bad_coding_;  // why the body could not be decoded
  std::string refusal_;  // why the guard refused an address in this hop
  curl_slist* resolve_ = nullptr;  // options_.resolve, for CURLOPT_RESOLVE
  curl_slist* request_headers_ = nullptr;  // HttpRequest::headers of the request in progress
  char error_[CURL_ERROR_SIZE] = {};
};

}  // namespace zcrawl::fetcher

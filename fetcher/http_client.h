// HttpClient: one HTTP GET, as the fetch workers need it (redirects are
// followed for robots.txt only).
// CurlHttpClient is the libcurl implementation; tests may inject fakes.
//
// Thread-safety: one client per worker thread. A CurlHttpClient keeps its
// easy handle between requests so connections to a host are reused.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fetcher/fetcher_options.h"
#include "zcrawl.pb.h"

namespace zcrawl::fetcher {

struct HttpRequest {
  std::string url;
  // Follow every redirect (any origin) through libcurl, up to
  // max_redirects; used for robots.txt. Otherwise a redirect ends the
  // fetch and its target is a link for the frontier (curl_transfer.h).
  bool follow_any_redirect = false;
  // Overrides HttpOptions::max_body_bytes when non-zero; with
  // truncate_body the body is cut there instead of failing.
  uint64_t max_body_bytes = 0;
  bool truncate_body = false;
  // Redirects taken before this request (WorkItem.redirect_hops): they
  // count against max_redirects, so a chain across origins is bounded too.
  uint32_t redirects_before = 0;
  // Request headers besides libcurl's own ("Name: value"): the
  // conditional headers of a recrawl (WorkItem.previous).
  std::vector<std::string> headers;
};

struct HttpResponse {
  v1::FetchStatus status = v1::FETCH_STATUS_UNSPECIFIED;  // OK when a response came
  std::string error;           // detail when status is not OK
  std::string cause;           // its token (fetcher/failure_cause.h), empty when OK
  uint32_t http_status = 0;
  std::string final_url;       // after the redirects libcurl followed (robots.txt)
  std::string location;        // Location of a final 3xx (absolute), if any
  std::vector<v1::Header> headers;  // of the final response
  std::string body;            // decoded (content-encoding removed)
  bool body_truncated = false;
  v1::Timings timings;
  std::string ip_address;
  std::string http_version;    // "HTTP/1.1", "HTTP/2"
  std::string request_headers; // of the final request, as sent
  uint32_t retry_after_ms = 0;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual HttpResponse Fetch(const HttpRequest& request) = 0;
};

std::unique_ptr<HttpClient> MakeCurlHttpClient(const HttpOptions& options);

// Value of the first header named `name` (case-insensitive), or "".
std::string_view FindHeader(const std::vector<v1::Header>& headers, std::string_view name);

}  // namespace zcrawl::fetcher

// FailureCause: the underlying cause of a failed transfer as a short,
// stable token ("connection_refused", "dns_not_found",
// "tls_certificate_untrusted", ...), so that the frontier's summary, log,
// metrics and `./run status` can say why an origin fails instead of only
// "network_error". The human-readable detail stays in FetchReport.error.
#pragma once

#include <curl/curl.h>

#include <string_view>

namespace zcrawl::fetcher {

struct TransferFailure {
  CURLcode code = CURLE_OK;
  long os_errno = 0;            // CURLINFO_OS_ERRNO
  long tls_verify_result = 0;   // CURLINFO_SSL_VERIFYRESULT (an X509_V_ERR_* code)
  bool connected = false;       // a request was sent (CURLINFO_REQUEST_SIZE > 0)
  std::string_view detail;      // curl's error buffer
};

// Empty for CURLE_OK. The tokens are documented in docs/ARCHITECTURE.md
// ("Failure causes").
std::string_view FailureCause(const TransferFailure& failure);

}  // namespace zcrawl::fetcher

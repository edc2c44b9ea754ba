#include "fetcher/failure_cause.h"

#include <openssl/x509_vfy.h>

#include <cerrno>

namespace zcrawl::fetcher {
namespace {

std::string_view CertificateCause(long verify_result, std::string_view detail) {
  switch (verify_result) {
    case X509_V_ERR_CERT_HAS_EXPIRED: return "tls_certificate_expired";
    case X509_V_ERR_CERT_NOT_YET_VALID: return "tls_certificate_not_yet_valid";
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_UNTRUSTED:
      return "tls_certificate_untrusted";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return "tls_hostname_mismatch";
    case X509_V_ERR_CERT_REVOKED: return "tls_certificate_revoked";
    default: break;
  }
  // libcurl checks the name itself after OpenSSL accepted the chain.
  if (detail.find("subject name") != std::string_view::npos ||
      detail.find("does not match") != std::string_view::npos) {
    return "tls_hostname_mismatch";
  }
  if (detail.find("expired") != std::string_view::npos) return "tls_certificate_expired";
  return "tls_certificate_invalid";
}

std::string_view SocketCause(long os_errno, std::string_view fallback) {
  switch (os_errno) {
    case ECONNREFUSED: return "connection_refused";
    case ECONNRESET: return "connection_reset";
    case EPIPE: return "connection_reset";
    case ENETUNREACH: return "network_unreachable";
    case EHOSTUNREACH: return "host_unreachable";
    case ETIMEDOUT: return "connect_timeout";
    default: return fallback;
  }
}

}  // namespace

std::string_view FailureCause(const TransferFailure& f) {
  switch (f.code) {
    case CURLE_OK: return "";
    case CURLE_COULDNT_RESOLVE_HOST: return "dns_not_found";
    case CURLE_COULDNT_RESOLVE_PROXY: return "proxy_dns_not_found";
    case CURLE_COULDNT_CONNECT: return SocketCause(f.os_errno, "connect_failed");
    case CURLE_OPERATION_TIMEDOUT: return f.connected ? "timeout" : "connect_timeout";
    case CURLE_PEER_FAILED_VERIFICATION: return CertificateCause(f.tls_verify_result, f.detail);
    case CURLE_SSL_CONNECT_ERROR: return "tls_handshake_failed";
    case CURLE_SSL_CACERT_BADFILE: return "tls_ca_file_unreadable";
    case CURLE_GOT_NOTHING: return "empty_reply";
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR: return SocketCause(f.os_errno, "connection_broken");
    case CURLE_PARTIAL_FILE: return "truncated_response";
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return "http2_error";
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_UNSUPPORTED_PROTOCOL: return "bad_response";
    case CURLE_BAD_CONTENT_ENCODING: return "bad_content_encoding";
    case CURLE_TOO_MANY_REDIRECTS: return "redirect_limit";
    case CURLE_URL_MALFORMAT: return "invalid_url";
    case CURLE_FILESIZE_EXCEEDED: return "too_large";
    default: return "network_error";
  }
}

}  // namespace zcrawl::fetcher

// FailureCause: libcurl's code, the socket errno and OpenSSL's verify
// result make the cause token the frontier reports per origin.
#include "fetcher/failure_cause.h"

#include <gtest/gtest.h>
#include <openssl/x509_vfy.h>

#include <cerrno>

namespace zcrawl::fetcher {
namespace {

std::string Cause(CURLcode code, long os_errno = 0, long verify = 0, bool connected = false,
                  std::string_view detail = "") {
  TransferFailure f;
  f.code = code;
  f.os_errno = os_errno;
  f.tls_verify_result = verify;
  f.connected = connected;
  f.detail = detail;
  return std::string(FailureCause(f));
}

TEST(FailureCauseTest, NoCauseWithoutAFailure) { EXPECT_EQ(Cause(CURLE_OK), ""); }

TEST(FailureCauseTest, ConnectFailuresByErrno) {
  EXPECT_EQ(Cause(CURLE_COULDNT_CONNECT, ECONNREFUSED), "connection_refused");
  EXPECT_EQ(Cause(CURLE_COULDNT_CONNECT, EHOSTUNREACH), "host_unreachable");
  EXPECT_EQ(Cause(CURLE_COULDNT_CONNECT, ENETUNREACH), "network_unreachable");
  EXPECT_EQ(Cause(CURLE_COULDNT_CONNECT, 0), "connect_failed");
  EXPECT_EQ(Cause(CURLE_RECV_ERROR, ECONNRESET), "connection_reset");
  EXPECT_EQ(Cause(CURLE_SEND_ERROR, EPIPE), "connection_reset");
  EXPECT_EQ(Cause(CURLE_RECV_ERROR, 0), "connection_broken");
}

TEST(FailureCauseTest, DnsAndTimeouts) {
  EXPECT_EQ(Cause(CURLE_COULDNT_RESOLVE_HOST), "dns_not_found");
  EXPECT_EQ(Cause(CURLE_OPERATION_TIMEDOUT, 0, 0, /*connected=*/false), "connect_timeout");
  EXPECT_EQ(Cause(CURLE_OPERATION_TIMEDOUT, 0, 0, /*connected=*/true), "timeout");
}

TEST(FailureCauseTest, CertificateProblemsByVerifyResult) {
  EXPECT_EQ(Cause(CURLE_PEER_FAILED_VERIFICATION, 0, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY),
            "tls_certificate_untrusted");
  EXPECT_EQ(Cause(CURLE_PEER_FAILED_VERIFICATION, 0, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT),
            "tls_certificate_untrusted");
  EXPECT_EQ(Cause(CURLE_PEER_FAILED_VERIFICATION, 0, X509_V_ERR_CERT_HAS_EXPIRED),
            "tls_certificate_expired");
  EXPECT_EQ(Cause(CURLE_PEER_FAILED_VERIFICATION, 0, X509_V_ERR_CERT_NOT_YET_VALID),
            "tls_certificate_not_yet_valid");
  // libcurl checks the host name itself: OpenSSL's result is then 0.
  EXPECT_EQ(Cause(CURLE_PEER_FAILED_VERIFICATION, 0, 0, true,
                  "SSL: no alternative certificate subject name matches target host name 'a.test'"),
            "tls_hostname_mismatch");
  EXPECT_EQ(Cause(CURLE_PEER_FAILED_VERIFICATION, 0, 0), "tls_certificate_invalid");
  EXPECT_EQ(Cause(CURLE_SSL_CONNECT_ERROR), "tls_handshake_failed");
  EXPECT_EQ(Cause(CURLE_SSL_CACERT_BADFILE), "tls_ca_file_unreadable");
}

TEST(FailureCauseTest, BadResponses) {
  EXPECT_EQ(Cause(CURLE_GOT_NOTHING), "empty_reply");
  EXPECT_EQ(Cause(CURLE_WEIRD_SERVER_REPLY), "bad_response");
  EXPECT_EQ(Cause(CURLE_PARTIAL_FILE), "truncated_response");
  EXPECT_EQ(Cause(CURLE_HTTP2), "http2_error");
  EXPECT_EQ(Cause(CURLE_BAD_CONTENT_ENCODING), "bad_content_encoding");
  EXPECT_EQ(Cause(CURLE_OUT_OF_MEMORY), "network_error");  // anything else
}

}  // namespace
}  // namespace zcrawl::fetcher

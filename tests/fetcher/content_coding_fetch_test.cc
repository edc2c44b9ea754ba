// Content codings through a real transfer (CurlTransfer, which both fetch
// drivers share) against a loopback server: what the fetcher asks for,
// what it stores, and how a body it cannot decode fails.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fetcher/content_decoder.h"
#include "fetcher/http_client.h"
#include "tests/support/content_codings.h"
#include "tests/support/test_http_server.h"

namespace zcrawl::fetcher {
namespace {

using ::zcrawl::testing::BrotliCoded;
using ::zcrawl::testing::DeflateCoded;
using ::zcrawl::testing::GzipFile;
using ::zcrawl::testing::TestHttpServer;
using ::zcrawl::testing::TestRequest;
using ::zcrawl::testing::TestResponse;
using ::zcrawl::testing::ZstdCoded;

std::string PageText() {
  std::string text = "<title>coded</title>";
  for (int i = 0; text.size() < 200 * 1024; ++i) text += "<p>paragraph " + std::to_string(i * 7919 % 1000) + "</p>\n";
  return text;
}

struct Served {
  std::string coding;  // Content-Encoding sent
  std::string body;    // bytes sent
};

class ContentCodingFetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& request) {
      {
        std::lock_guard lock(mu_);
        accept_encodings_.push_back(request.Header("accept-encoding"));
      }
      TestResponse response;
      response.headers = {{"Content-Type", "text/html"}};
      if (!served_.coding.empty()) response.headers.emplace_back("Content-Encoding", served_.coding);
      response.body = served_.body;
      return response;
    });
    server_->Start();
    client_ = MakeCurlHttpClient(options_);
  }

  HttpResponse Fetch(const Served& served, HttpRequest request = {}) {
    server_->Publish([&] { served_ = served; });
    request.url = server_->origin() + "/page";
    return client_->Fetch(request);
  }

  HttpOptions options_;
  std::unique_ptr<TestHttpServer> server_;
  std::unique_ptr<HttpClient> client_;
  Served served_;
  std::mutex mu_;
  std::vector<std::string> accept_encodings_;
};

TEST_F(ContentCodingFetchTest, EveryAdvertisedCodingIsStoredDecoded) {
  const std::string text = PageText();
  const std::vector<Served> codings = {
      {"gzip", GzipFile(text, 6)},          {"deflate", DeflateCoded(text, true)},
      {"deflate", DeflateCoded(text, false)}, {"br", BrotliCoded(text)},
      {"zstd", ZstdCoded(text)},            {"gzip, br", BrotliCoded(GzipFile(text, 6))},
      {"", text}};
  for (const Served& served : codings) {
    const HttpResponse response = Fetch(served);
    EXPECT_EQ(response.status, v1::FETCH_STATUS_OK) << served.coding << ": " << response.error;
    EXPECT_EQ(response.http_status, 200u);
    EXPECT_EQ(response.body.size(), text.size()) << served.coding;
    EXPECT_TRUE(response.body == text) << served.coding;
    EXPECT_EQ(FindHeader(response.headers, "content-encoding"), served.coding) << "the header is kept as sent";
  }
  std::lock_guard lock(mu_);
  ASSERT_EQ(accept_encodings_.size(), codings.size());
  for (const std::string& sent : accept_encodings_) EXPECT_EQ(sent, ContentDecoder::kAcceptEncoding);
}

TEST_F(ContentCodingFetchTest, AnUndecodableBodyFailsAsBadContentEncoding) {
  std::string corrupt = GzipFile(PageText(), 6);
  corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0xff);
  for (const Served& served : {Served{"compress", "whatever"}, Served{"gzip", corrupt},
                               Served{"br", "not brotli at all"}}) {
    const HttpResponse response = Fetch(served);
    EXPECT_EQ(response.status, v1::FETCH_STATUS_NETWORK_ERROR) << served.coding;
    EXPECT_EQ(response.cause, "bad_content_encoding") << served.coding << ": " << response.error;
    const std::string why = served.coding == "compress" ? "unsupported content coding 'compress'"
                                                        : "cannot undo Content-Encoding '" + served.coding + "': ";
    EXPECT_NE(response.error.find(why), std::string::npos) << response.error;
  }
  // The connection is still good for the next page.
  EXPECT_EQ(Fetch({"gzip", GzipFile("<p>fine</p>")}).body, "<p>fine</p>");
}

TEST_F(ContentCodingFetchTest, BodyLimitCountsDecodedBytes) {
  const std::string text = PageText();
  HttpRequest truncated;
  truncated.max_body_bytes = 10'000;
  truncated.truncate_body = true;
  HttpResponse response = Fetch({"br", BrotliCoded(text)}, truncated);
  EXPECT_EQ(response.status, v1::FETCH_STATUS_OK) << response.error;
  EXPECT_TRUE(response.body_truncated);
  EXPECT_EQ(response.body, text.substr(0, 10'000));

  HttpRequest bounded;
  bounded.max_body_bytes = 10'000;
  response = Fetch({"zstd", ZstdCoded(text)}, bounded);
  EXPECT_EQ(response.status, v1::FETCH_STATUS_TOO_LARGE);
  EXPECT_EQ(response.cause, "too_large");
}

}  // namespace
}  // namespace zcrawl::fetcher

// What the fetcher's address guard lets through (fetcher/
// private_address_guard.h), and that a transfer applies it to the address
// it connects to: after DNS (--resolve), and on redirects.
#include "fetcher/private_address_guard.h"

#include <gtest/gtest.h>

#include "fetcher/http_client.h"
#include "tests/support/test_http_server.h"

namespace zcrawl::fetcher {
namespace {

IpAddress Ip(const char* text) { return *IpAddress::Parse(text); }

TEST(PrivateAddressGuardTest, PublicAddressesAlwaysPass) {
  PrivateAddressGuard guard;
  EXPECT_FALSE(guard.Refusal(Ip("93.184.215.14"), "example.com").has_value());
  EXPECT_FALSE(guard.Refusal(Ip("2606:4700::1111"), "example.com").has_value());
}

TEST(PrivateAddressGuardTest, RefusesEveryNonPublicAddressBeforeAPolicy) {
  PrivateAddressGuard guard;
  for (const char* address : {"127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "fd00::1", "::ffff:192.168.0.1"}) {
    auto refusal = guard.Refusal(Ip(address), "example.com");
    ASSERT_TRUE(refusal.has_value()) << address;
    EXPECT_NE(refusal->find("not a public address"), std::string::npos) << *refusal;
  }
  EXPECT_EQ(*guard.Refusal(Ip("169.254.169.254"), "x"),
            "169.254.169.254 is in 169.254.0.0/16, not a public address (--allow-private-addresses "
            "or --allow-network opens it)");
}

TEST(PrivateAddressGuardTest, OpensWhatThePolicySays) {
  PrivateAddressGuard guard;
  v1::NetworkPolicy policy;
  policy.add_open_networks("127.0.0.0/8");
  policy.add_open_networks("not a network");  // left closed, never opened
  policy.add_open_hosts("Intranet.Example");
  guard.Set(policy);
  EXPECT_FALSE(guard.Refusal(Ip("127.0.0.2"), "anything").has_value());
  EXPECT_FALSE(guard.Refusal(Ip("::ffff:127.0.0.2"), "anything").has_value());
  EXPECT_TRUE(guard.Refusal(Ip("::1"), "anything").has_value());
  EXPECT_TRUE(guard.Refusal(Ip("10.0.0.1"), "other.example").has_value());
  // A seed host by name may be anywhere.
  EXPECT_FALSE(guard.Refusal(Ip("10.0.0.1"), "intranet.example").has_value());
  EXPECT_FALSE(guard.Refusal(Ip("169.254.169.254"), "INTRANET.example").has_value());
  EXPECT_TRUE(guard.Refusal(Ip("10.0.0.1"), "").has_value());

  v1::NetworkPolicy all;
  all.set_allow_private_addresses(true);
  guard.Set(all);
  EXPECT_FALSE(guard.Refusal(Ip("169.254.169.254"), "x").has_value());
  // A later policy replaces the earlier one.
  guard.Set(v1::NetworkPolicy());
  EXPECT_TRUE(guard.Refusal(Ip("127.0.0.2"), "anything").has_value());
}

// The transfer asks the guard about the address it is about to connect to.
class GuardedTransferTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<zcrawl::testing::TestHttpServer>(
        "127.0.0.1", [this](const zcrawl::testing::TestRequest& request) {
          zcrawl::testing::TestResponse response;
          if (request.target == "/to-metadata") {
            response.status = 302;
            response.headers.push_back({"Location", "http://metadata.test:" + std::to_string(server_->port()) + "/latest"});
            return response;
          }
          auto host = request.headers.find("host");
          response.body = "ok " + (host == request.headers.end() ? std::string() : host->second);
          return response;
        });
    server_->Start();
    options_.address_guard = std::make_shared<PrivateAddressGuard>();
    options_.resolve = {"site.test:" + std::to_string(server_->port()) + ":127.0.0.1",
                        "metadata.test:" + std::to_string(server_->port()) + ":127.0.0.1"};
  }
  HttpResponse Fetch(const std::string& url, bool follow_any = false) {
    auto client = MakeCurlHttpClient(options_);
    HttpRequest request;
    request.url = url;
    request.follow_any_redirect = follow_any;
    return client->Fetch(request);
  }
  std::string Url(const std::string& host, const std::string& path) {
    return "http://" + host + ":" + std::to_string(server_->port()) + path;
  }
  std::unique_ptr<zcrawl::testing::TestHttpServer> server_;
  HttpOptions options_;
};

TEST_F(GuardedTransferTest, RefusesANameThatResolvesToAPrivateAddress) {
  HttpResponse refused = Fetch(Url("site.test", "/"));
  EXPECT_EQ(refused.status, v1::FETCH_STATUS_PRIVATE_ADDRESS);
  EXPECT_EQ(refused.cause, "private_address");
  EXPECT_NE(refused.error.find("127.0.0.1 is in 127.0.0.0/8"), std::string::npos) << refused.error;
  EXPECT_EQ(server_->total_requests(), 0u) << "the refused address was connected to";

  // Opened by name: the same fetch goes through, so the refusal above was
  // the guard's doing and nothing else's.
  v1::NetworkPolicy policy;
  policy.add_open_hosts("site.test");
  options_.address_guard->Set(policy);
  HttpResponse fetched = Fetch(Url("site.test", "/"));
  EXPECT_EQ(fetched.status, v1::FETCH_STATUS_OK) << fetched.error;
  EXPECT_EQ(fetched.body, "ok site.test:" + std::to_string(server_->port()));
  EXPECT_EQ(server_->total_requests(), 1u);
}

TEST_F(GuardedTransferTest, JudgesEachRedirectHopByItsOwnHost) {
  v1::NetworkPolicy policy;
  policy.add_open_hosts("site.test");
  options_.address_guard->Set(policy);
  // libcurl follows (robots.txt requests do): the second hop's host is not open.
  HttpResponse response = Fetch(Url("site.test", "/to-metadata"), /*follow_any=*/true);
  EXPECT_EQ(response.status, v1::FETCH_STATUS_PRIVATE_ADDRESS) << response.error;
  EXPECT_EQ(server_->requests_for("/to-metadata"), 1u);
  EXPECT_EQ(server_->requests_for("/latest"), 0u);
}

}  // namespace
}  // namespace zcrawl::fetcher

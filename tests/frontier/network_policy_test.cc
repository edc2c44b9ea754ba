// The crawl's NetworkPolicy from its seeds and settings
// (frontier/admission/network_policy.h).
#include "frontier/admission/network_policy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zcrawl::frontier {
namespace {

std::vector<Url> Seeds(const std::vector<std::string>& texts) {
  std::vector<Url> out;
  for (const auto& text : texts) out.push_back(*Url::Parse(text));
  return out;
}

std::vector<std::string> Networks(const v1::NetworkPolicy& p) {
  return {p.open_networks().begin(), p.open_networks().end()};
}
std::vector<std::string> Hosts(const v1::NetworkPolicy& p) {
  return {p.open_hosts().begin(), p.open_hosts().end()};
}

TEST(NetworkPolicyTest, PublicSeedsOpenNothingButTheirNames) {
  auto p = MakeNetworkPolicy(Seeds({"https://example.com/", "http://8.8.8.8/", "https://Example.com/b"}),
                             false, {});
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->allow_private_addresses());
  EXPECT_TRUE(Networks(*p).empty());
  EXPECT_EQ(Hosts(*p), std::vector<std::string>{"example.com"});
}

TEST(NetworkPolicyTest, SeedsAtNonPublicAddressesOpenTheirBlocks) {
  auto p = MakeNetworkPolicy(
      Seeds({"http://127.0.0.1:8080/", "http://127.0.0.2/", "http://10.1.2.3/", "http://[fd00::5]/"}),
      false, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(Networks(*p), (std::vector<std::string>{"10.0.0.0/8", "127.0.0.0/8", "fc00::/7"}));
  EXPECT_TRUE(Hosts(*p).empty());
}

TEST(NetworkPolicyTest, LocalhostNamesOpenLoopback) {
  for (const char* seed : {"http://localhost:8080/", "http://app.localhost/"}) {
    auto p = MakeNetworkPolicy(Seeds({seed}), false, {});
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(Networks(*p), (std::vector<std::string>{"127.0.0.0/8", "::1/128"})) << seed;
    EXPECT_TRUE(Hosts(*p).empty()) << seed;
  }
  // Only the name itself and its subdomains.
  auto p = MakeNetworkPolicy(Seeds({"http://notlocalhost/"}), false, {});
  EXPECT_EQ(Hosts(*p), std::vector<std::string>{"notlocalhost"});
}

TEST(NetworkPolicyTest, SettingsAddNetworksOrOpenEverything) {
  auto p = MakeNetworkPolicy(Seeds({"https://example.com/"}), true, {"10.9.0.0/16", "192.168.1.7"});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->allow_private_addresses());
  EXPECT_EQ(Networks(*p), (std::vector<std::string>{"10.9.0.0/16", "192.168.1.7/32"}));
  auto bad = MakeNetworkPolicy(Seeds({"https://example.com/"}), false, {"10.0.0.0/40"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--allow-network"), std::string::npos);
}

TEST(NetworkPolicyTest, OpenHostsAreBounded) {
  std::vector<std::string> texts;
  for (size_t i = 0; i < kMaxOpenHosts + 5; ++i) texts.push_back("http://h" + std::to_string(i) + ".example/");
  auto p = MakeNetworkPolicy(Seeds(texts), false, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(static_cast<size_t>(p->open_hosts_size()), kMaxOpenHosts);
}

TEST(NetworkPolicyTest, DescribesItselfForTheLog) {
  auto p = MakeNetworkPolicy(Seeds({"http://127.0.0.1/", "http://a.test/"}), false, {});
  EXPECT_EQ(DescribeNetworkPolicy(*p), "public addresses, 127.0.0.0/8 and the seed hosts (1) by name");
  p = MakeNetworkPolicy(Seeds({"http://127.0.0.1/"}), true, {});
  EXPECT_EQ(DescribeNetworkPolicy(*p), "every address (--allow-private-addresses)");
}

}  // namespace
}  // namespace zcrawl::frontier

// IpAddress, IpNetwork and the special-purpose blocks the fetchers refuse
// by default (common/ip_network.h).
#include "common/ip_network.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

namespace zcrawl {
namespace {

std::string BlockOf(const std::string& text) {
  auto address = IpAddress::Parse(text);
  if (!address) return "unparsable";
  auto block = NonPublicBlockOf(*address);
  return block ? block->ToString() : "public";
}

TEST(IpAddressTest, ParsesBothFamiliesAndUrlBrackets) {
  EXPECT_EQ(IpAddress::Parse("10.1.2.3")->ToString(), "10.1.2.3");
  EXPECT_EQ(IpAddress::Parse("[::1]")->ToString(), "::1");
  EXPECT_EQ(IpAddress::Parse("FD00:0:0::1")->ToString(), "fd00::1");
  EXPECT_TRUE(IpAddress::Parse("10.1.2.3")->is_v4());
  // A mapped address is the IPv4 address it carries.
  EXPECT_EQ(*IpAddress::Parse("::ffff:10.1.2.3"), *IpAddress::Parse("10.1.2.3"));
  for (const char* bad : {"", "example.com", "10.1.2", "1.2.3.256", "[::1", "::g", "10.0.0.1/8"}) {
    EXPECT_FALSE(IpAddress::Parse(bad).has_value()) << bad;
  }
}

TEST(IpAddressTest, ReadsSocketAddresses) {
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  inet_pton(AF_INET, "169.254.169.254", &v4.sin_addr);
  auto a = IpAddress::FromSockaddr(reinterpret_cast<sockaddr*>(&v4), sizeof(v4));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->ToString(), "169.254.169.254");
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "::ffff:127.0.0.1", &v6.sin6_addr);
  auto b = IpAddress::FromSockaddr(reinterpret_cast<sockaddr*>(&v6), sizeof(v6));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ToString(), "127.0.0.1");
  // Too short for its family, or another family: not an IP address.
  EXPECT_FALSE(IpAddress::FromSockaddr(reinterpret_cast<sockaddr*>(&v6), sizeof(v4)).has_value());
  sockaddr unix_address{};
  unix_address.sa_family = AF_UNIX;
  EXPECT_FALSE(IpAddress::FromSockaddr(&unix_address, sizeof(unix_address)).has_value());
}

TEST(IpNetworkTest, ParsesAndContains) {
  auto net = IpNetwork::Parse("10.1.0.0/16");
  ASSERT_TRUE(net.ok());
  EXPECT_EQ(net->ToString(), "10.1.0.0/16");
  EXPECT_TRUE(net->Contains(*IpAddress::Parse("10.1.255.7")));
  EXPECT_FALSE(net->Contains(*IpAddress::Parse("10.2.0.1")));
  // IPv4 blocks never hold IPv6 addresses, nor the reverse.
  EXPECT_FALSE(net->Contains(*IpAddress::Parse("::a01:1")));
  // Host bits are cleared; an address alone is a /32 or /128.
  EXPECT_EQ(IpNetwork::Parse("172.20.9.9/12")->ToString(), "172.16.0.0/12");
  EXPECT_EQ(IpNetwork::Parse("fd12:3456::1/7")->ToString(), "fc00::/7");
  EXPECT_EQ(IpNetwork::Parse("192.168.1.1")->ToString(), "192.168.1.1/32");
  EXPECT_EQ(IpNetwork::Parse("::1")->ToString(), "::1/128");
  EXPECT_TRUE(IpNetwork::Parse("0.0.0.0/0")->Contains(*IpAddress::Parse("8.8.8.8")));
  EXPECT_TRUE(IpNetwork::Parse("10.0.0.3/31")->Contains(*IpAddress::Parse("10.0.0.2")));
  EXPECT_FALSE(IpNetwork::Parse("10.0.0.3/31")->Contains(*IpAddress::Parse("10.0.0.4")));
  for (const char* bad : {"10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/x", "10.0.0.0/8/8", "net/8"}) {
    EXPECT_FALSE(IpNetwork::Parse(bad).ok()) << bad;
  }
}

TEST(NonPublicBlockTest, NamesTheBlockOfEveryNonPublicAddress) {
  EXPECT_EQ(BlockOf("127.0.0.1"), "127.0.0.0/8");
  EXPECT_EQ(BlockOf("127.255.0.9"), "127.0.0.0/8");
  EXPECT_EQ(BlockOf("0.0.0.0"), "0.0.0.0/8");
  EXPECT_EQ(BlockOf("10.255.255.1"), "10.0.0.0/8");
  EXPECT_EQ(BlockOf("172.16.0.1"), "172.16.0.0/12");
  EXPECT_EQ(BlockOf("172.31.255.255"), "172.16.0.0/12");
  EXPECT_EQ(BlockOf("192.168.1.1"), "192.168.0.0/16");
  EXPECT_EQ(BlockOf("169.254.169.254"), "169.254.0.0/16");
  EXPECT_EQ(BlockOf("100.100.100.200"), "100.64.0.0/10");
  EXPECT_EQ(BlockOf("198.19.0.1"), "198.18.0.0/15");
  EXPECT_EQ(BlockOf("224.0.0.251"), "224.0.0.0/4");
  EXPECT_EQ(BlockOf("255.255.255.255"), "240.0.0.0/4");
  EXPECT_EQ(BlockOf("::1"), "::1/128");
  EXPECT_EQ(BlockOf("::"), "::/128");
  EXPECT_EQ(BlockOf("fd00::1"), "fc00::/7");
  EXPECT_EQ(BlockOf("fe80::1"), "fe80::/10");
  EXPECT_EQ(BlockOf("ff02::1"), "ff00::/8");
  // Mapped and NAT64 forms of a private IPv4 address are that address.
  EXPECT_EQ(BlockOf("::ffff:169.254.169.254"), "169.254.0.0/16");
  EXPECT_EQ(BlockOf("64:ff9b::a00:1"), "10.0.0.0/8");
}

TEST(NonPublicBlockTest, LeavesPublicAddressesAlone) {
  for (const char* address : {"8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.0", "100.63.255.255",
                              "100.128.0.0", "169.253.255.255", "192.169.0.1", "11.0.0.1",
                              "2606:4700::1111", "2a00:1450:4001::200e", "64:ff9b::808:808"}) {
    EXPECT_EQ(BlockOf(address), "public") << address;
  }
}

}  // namespace
}  // namespace zcrawl

// IpAddress and IpNetwork: IPv4 and IPv6 addresses and CIDR blocks, and the
// special-purpose blocks a crawler must not be led into by the links it
// follows (loopback, private networks, link-local with the cloud metadata
// service, carrier-grade NAT, multicast, reserved).
//
// An IPv4 address is held as its IPv4-mapped IPv6 form (::ffff:a.b.c.d), so
// one 128-bit comparison serves both families and a mapped address given to
// an IPv6 socket is judged as the IPv4 address it is. Values; thread-safe.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl {

class IpAddress {
 public:
  // "10.0.0.1", "::1", "[::1]" (a URL's host), "::ffff:10.0.0.1".
  static std::optional<IpAddress> Parse(std::string_view text);
  // An AF_INET or AF_INET6 socket address; nullopt for other families.
  static std::optional<IpAddress> FromSockaddr(const sockaddr* address, socklen_t length);

  bool is_v4() const;
  // The IPv4 address a NAT64 address (64:ff9b::/96) stands for, as mapped;
  // the address itself otherwise.
  IpAddress Unwrapped() const;
  // "10.0.0.1" or "fd00::1".
  std::string ToString() const;
  const std::array<uint8_t, 16>& bytes() const { return bytes_; }
  bool operator==(const IpAddress& o) const { return bytes_ == o.bytes_; }

 private:
  friend class IpNetwork;  // clears host bits in place
  std::array<uint8_t, 16> bytes_{};
};

class IpNetwork {
 public:
  // "10.0.0.0/8", "fd00::/8", or an address alone (a /32 or /128).
  static Result<IpNetwork> Parse(std::string_view text);
  IpNetwork(IpAddress base, uint32_t prefix_bits);  // prefix in the address's own family

  bool Contains(const IpAddress& address) const;
  // "10.0.0.0/8".
  std::string ToString() const;

 private:
  IpAddress base_;       // host bits cleared
  uint32_t prefix_ = 0;  // of 128 (an IPv4 /8 is 96 + 8)
};

// The special-purpose block `address` is in (after unwrapping NAT64), or
// nullopt for a public address. The list (IANA's special-purpose registries,
// the blocks that reach something other than the public internet):
//   IPv4: 0.0.0.0/8 (Linux connects 0.0.0.0 to this machine), 10.0.0.0/8,
//         100.64.0.0/10 (carrier-grade NAT; one cloud's metadata is there),
//         127.0.0.0/8, 169.254.0.0/16 (link-local, cloud metadata at
//         169.254.169.254), 172.16.0.0/12, 192.0.0.0/24, 192.168.0.0/16,
//         198.18.0.0/15, 224.0.0.0/4 (multicast), 240.0.0.0/4 (reserved,
//         broadcast)
//   IPv6: ::/128, ::1/128, fc00::/7 (unique local), fe80::/10 (link-local),
//         fec0::/10 (old site-local), ff00::/8 (multicast)
std::optional<IpNetwork> NonPublicBlockOf(const IpAddress& address);

}  // namespace zcrawl

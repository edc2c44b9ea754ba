#include "common/ip_network.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>
#include <vector>

namespace zcrawl {
namespace {

constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
constexpr uint8_t kNat64Prefix[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
constexpr uint32_t kV4Offset = 96;  // bits before an IPv4 address in its mapped form

bool StartsWith12(const std::array<uint8_t, 16>& bytes, const uint8_t (&prefix)[12]) {
  return std::memcmp(bytes.data(), prefix, 12) == 0;
}

const std::vector<IpNetwork>& NonPublicBlocks() {
  static const std::vector<IpNetwork> blocks = [] {
    std::vector<IpNetwork> out;
    for (const char* text :
         {"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
          "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4",
          "240.0.0.0/4", "::/128", "::1/128", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8"}) {
      out.push_back(*IpNetwork::Parse(text));
    }
    return out;
  }();
  return blocks;
}

}  // namespace

std::optional<IpAddress> IpAddress::Parse(std::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
  }
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  const std::string s(text);
  IpAddress out;
  in_addr v4{};
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    std::memcpy(out.bytes_.data(), kMappedPrefix, 12);
    std::memcpy(out.bytes_.data() + 12, &v4, 4);
    return out;
  }
  if (inet_pton(AF_INET6, s.c_str(), out.bytes_.data()) == 1) return out;
  return std::nullopt;
}

std::optional<IpAddress> IpAddress::FromSockaddr(const sockaddr* address, socklen_t length) {
  if (address == nullptr) return std::nullopt;
  IpAddress out;
  if (address->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    std::memcpy(out.bytes_.data(), kMappedPrefix, 12);
    std::memcpy(out.bytes_.data() + 12, &v4->sin_addr, 4);
    return out;
  }
  if (address->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    std::memcpy(out.bytes_.data(), &v6->sin6_addr, 16);
    return out;
  }
  return std::nullopt;
}

bool IpAddress::is_v4() const { return StartsWith12(bytes_, kMappedPrefix); }

IpAddress IpAddress::Unwrapped() const {
  if (!StartsWith12(bytes_, kNat64Prefix)) return *this;
  IpAddress out = *this;
  std::memcpy(out.bytes_.data(), kMappedPrefix, 12);
  return out;
}

std::string IpAddress::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (is_v4()) {
    inet_ntop(AF_INET, bytes_.data() + 12, text, sizeof(text));
  } else {
    inet_ntop(AF_INET6, bytes_.data(), text, sizeof(text));
  }
  return text;
}

IpNetwork::IpNetwork(IpAddress base, uint32_t prefix_bits)
    : base_(base), prefix_(std::min<uint32_t>(prefix_bits + (base.is_v4() ? kV4Offset : 0), 128)) {
  // Clear the host bits, so Contains compares whole bytes and one mask.
  for (uint32_t bit = prefix_; bit < 128; ++bit) {
    base_.bytes_[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
}

Result<IpNetwork> IpNetwork::Parse(std::string_view text) {
  const size_t slash = text.find('/');
  auto address = IpAddress::Parse(text.substr(0, slash));
  if (!address) return InvalidArgumentError("not an IP address or network: \"" + std::string(text) + "\"");
  const uint32_t family_bits = address->is_v4() ? 32 : 128;
  uint32_t prefix = family_bits;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() ||
        prefix > family_bits) {
      return InvalidArgumentError("bad prefix length in \"" + std::string(text) + "\" (0-" +
                                  std::to_string(family_bits) + ")");
    }
  }
  return IpNetwork(*address, prefix);
}

bool IpNetwork::Contains(const IpAddress& address) const {
  const auto& a = address.bytes();
  const auto& b = base_.bytes();
  const uint32_t whole = prefix_ / 8;
  if (std::memcmp(a.data(), b.data(), whole) != 0) return false;
  const uint32_t rest = prefix_ % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<uint8_t>(0xFF00u >> rest);
  return (a[whole] & mask) == b[whole];
}

std::string IpNetwork::ToString() const {
  if (base_.is_v4() && prefix_ >= kV4Offset) {
    return base_.ToString() + "/" + std::to_string(prefix_ - kV4Offset);
  }
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, base_.bytes().data(), text, sizeof(text));
  return std::string(text) + "/" + std::to_string(prefix_);
}

std::optional<IpNetwork> NonPublicBlockOf(const IpAddress& address) {
  const IpAddress plain = address.Unwrapped();
  for (const IpNetwork& block : NonPublicBlocks()) {
    if (block.Contains(plain)) return block;
  }
  return std::nullopt;
}

}  // namespace zcrawl

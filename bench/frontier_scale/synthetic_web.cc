#include "bench/frontier_scale/synthetic_web.h"

#include <algorithm>
#include <cmath>

#include "common/hash_mix.h"

namespace zcrawl::bench {
namespace {

constexpr std::string_view kScheme = "http://h";
constexpr std::string_view kDomain = ".synth.test/";
constexpr uint64_t kPopularSalt = 0x706f70756c6172ULL;  // "popular"
constexpr uint64_t kRootSalt = 0x726f6f74ULL;           // "root"
constexpr uint64_t kHostDraw = 1000;                    // Mix(page, kHostDraw): its cross-host child's host
constexpr uint64_t kKnownDraw = 2000;                   // Mix(page, kKnownDraw + j): its j-th known link

// Uniform in [0, 1) from the top 53 bits.
double Unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Ids are never 0: that is the root.
uint64_t NonZero(uint64_t id) { return id == 0 ? 1 : id; }

}  // namespace

SyntheticWeb::SyntheticWeb(const SyntheticWebOptions& options)
    : options_(options),
      skew_power_(std::pow(static_cast<double>(options.hosts) + 1.0, 1.0 - options.host_skew)) {}

uint64_t SyntheticWeb::Mix(uint64_t a, uint64_t b) {
  return MixBits(a ^ MixBits(b * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

std::string SyntheticWeb::Url(const SyntheticPage& page) const {
  std::string url;
  url.reserve(kScheme.size() + 20 + kDomain.size() + 16);
  url.append(kScheme);
  url.append(std::to_string(page.host));
  url.append(kDomain);
  if (page.id != 0) {
    static constexpr char kHex[] = "0123456789abcdef";
    char hex[16];
    for (int i = 15, shift = 0; i >= 0; --i, shift += 4) hex[i] = kHex[(page.id >> shift) & 15];
    url.append(hex, sizeof hex);
  }
  return url;
}

std::optional<SyntheticPage> SyntheticWeb::Parse(std::string_view url) const {
  if (url.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  url.remove_prefix(kScheme.size());
  SyntheticPage page;
  size_t digits = 0;
  while (digits < url.size() && digits < 20 && url[digits] >= '0' && url[digits] <= '9') {
    page.host = page.host * 10 + static_cast<uint64_t>(url[digits] - '0');
    ++digits;
  }
  if (digits == 0 || digits == 20 || page.host >= options_.hosts) return std::nullopt;
  url.remove_prefix(digits);
  if (url.substr(0, kDomain.size()) != kDomain) return std::nullopt;
  url.remove_prefix(kDomain.size());
  if (url.empty()) return page;  // the root
  if (url.size() != 16) return std::nullopt;
  for (char c : url) {
    uint64_t nibble;
    if (c >= '0' && c <= '9') {
      nibble = static_cast<uint64_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      nibble = static_cast<uint64_t>(c - 'a' + 10);
    } else {
      return std::nullopt;
    }
    page.id = page.id << 4 | nibble;
  }
  if (page.id == 0) return std::nullopt;
  return page;
}

uint64_t SyntheticWeb::PopularId(uint64_t host, uint32_t k) const {
  return NonZero(Mix(host ^ kPopularSalt, k));
}

// Inverse CDF of the density x^-skew on [1, hosts + 1): rank r has a
// probability close to (r + 1)^-skew / H(hosts, skew), and needs no table.
uint64_t SyntheticWeb::LinkedHost(uint64_t from_host, uint64_t draw) const {
  const double u = Unit(draw);
  const double s = options_.host_skew;
  const double x = std::abs(s - 1.0) < 1e-9 ? std::pow(static_cast<double>(options_.hosts) + 1.0, u)
                                            : std::pow(1.0 - u * (1.0 - skew_power_), 1.0 / (1.0 - s));
  uint64_t host = static_cast<uint64_t>(std::max(x, 1.0)) - 1;
  host = std::min(host, options_.hosts - 1);
  if (host == from_host) host = (host + 1) % options_.hosts;  // another host
  return host;
}

void SyntheticWeb::AppendLinks(const SyntheticPage& page, std::vector<std::string>& out) const {
  // The root's children need an id of their own, different on every host.
  const uint64_t self = page.id != 0 ? page.id : Mix(page.host, kRootSalt);
  for (uint32_t i = 0; i < options_.children; ++i) {
    const uint64_t host = i == 0 ? LinkedHost(page.host, Mix(self, kHostDraw)) : page.host;
    out.push_back(Url({host, NonZero(Mix(self, i))}));
  }
  if (page.id == 0) {
    for (uint32_t k = 0; k < options_.popular; ++k) out.push_back(Url({page.host, PopularId(page.host, k)}));
    return;
  }
  // Known links: slot 0 is the root, slot k + 1 popular page k; distinct
  // slots, drawn as floor(slots * u^2) (the root ~14% of the first draws
  // with 51 slots), a taken slot giving way to the next free one.
  const uint32_t slots = options_.popular + 1;
  const uint32_t wanted = std::min(options_.known_links, slots);
  std::vector<bool> taken(slots, false);
  for (uint32_t j = 0; j < wanted; ++j) {
    const double u = Unit(Mix(self, kKnownDraw + j));
    uint32_t slot = std::min(static_cast<uint32_t>(u * u * slots), slots - 1);
    while (taken[slot]) slot = (slot + 1) % slots;
    taken[slot] = true;
    out.push_back(slot == 0 ? Url({page.host, 0}) : Url({page.host, PopularId(page.host, slot - 1)}));
  }
}

}  // namespace zcrawl::bench

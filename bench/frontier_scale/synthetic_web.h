// SyntheticWeb: the endless, deterministic web that frontier_scale_bench's
// fake fetchers "fetch". Nothing is stored: a page's links are a pure
// function of its URL, so the bench keeps no state however many URLs the
// frontier learns.
//
// A page is (host, id): http://h<host>.synth.test/<16 hex digits> for id != 0,
// http://h<host>.synth.test/ for the host's root (id 0). Every host has the
// same shape:
//   * its root links its `popular` popular pages, ids Mix(host ^ salt, k)
//     for k < popular, plus the root's own children;
//   * every page links `children` new pages, ids Mix(page, i): the first on
//     another host, drawn from a Zipf-like law over `hosts` hosts (host 0 is
//     the most linked, host r gets ~1/(r+1)^host_skew of the links), the
//     others on its own host. With 64-bit ids these are new URLs;
//   * and `known_links` links to the root and popular pages of its own
//     host, distinct, drawn skewed towards the root: known as soon as the
//     host's first page was reported, so they are the duplicates a real
//     site's navigation makes.
// Discovering a host therefore costs popular + 1 new URLs once; with the
// default skew new hosts get rare as the crawl grows (bench/README.md,
// "Frontier scale": the share of duplicates that gives).
//
// Thread-safety: immutable after construction; every method is const and
// safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zcrawl::bench {

struct SyntheticWebOptions {
  uint64_t hosts = 10'000'000;  // h0 .. h<hosts-1>; at least 2
  double host_skew = 1.5;       // Zipf exponent of cross-host links (> 0)
  uint32_t children = 5;        // new links per page (the first on another host)
  uint32_t known_links = 23;    // links per page to its host's root and popular pages
  uint32_t popular = 50;        // popular pages per host (known_links <= popular + 1)
};

struct SyntheticPage {
  uint64_t host = 0;
  uint64_t id = 0;  // 0: the host's root
};

class SyntheticWeb {
 public:
  explicit SyntheticWeb(const SyntheticWebOptions& options);

  // The 64-bit mixing function every id and draw comes from (a bijection of
  // a ^ f(b), then an avalanche: a different (a, b) almost never collides).
  static uint64_t Mix(uint64_t a, uint64_t b);

  std::string Url(const SyntheticPage& page) const;
  // The page a URL names; nullopt for anything this web never links
  // (another domain, a bad id, a host out of range).
  std::optional<SyntheticPage> Parse(std::string_view url) const;
  // Appends the page's links (absolute URLs) to `out`.
  void AppendLinks(const SyntheticPage& page, std::vector<std::string>& out) const;

  const SyntheticWebOptions& options() const { return options_; }

 private:
  uint64_t PopularId(uint64_t host, uint32_t k) const;
  uint64_t LinkedHost(uint64_t from_host, uint64_t draw) const;

  const SyntheticWebOptions options_;
  const double skew_power_;  // (hosts + 1)^(1 - skew), for the inverse CDF
};

}  // namespace zcrawl::bench

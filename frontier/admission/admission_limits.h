// AdmissionLimits: the crawl's size caps, applied by the broker to each URL
// the link threads found new (already scope-checked and de-duplicated), just
// before it is enqueued:
//   max_pages           URLs admitted in total (seeds included);
//   max_pages_per_host  URLs admitted per origin (the politeness key);
//   max_pages_per_domain URLs admitted per registrable domain (public-suffix
//                       aware: a.example.co.uk and b.example.co.uk share
//                       example.co.uk), so a site with endless subdomains
//                       cannot fill a broad crawl;
//   max_query_variants  URLs with a query string per origin + path, so a
//                       calendar (?month=...), a session id in every link
//                       (?sid=...) or endless facet combinations cannot trap
//                       the crawl. The bare path (no '?') is not counted.
// A URL refused here stays in the visited set, so it is never reconsidered.
//
// Memory, for crawls of hundreds of millions of URLs: counters are keyed by
// 64-bit hashes (MD5 prefixes, see url_fingerprint.h), never by strings.
// Per origin: nothing; its count is the scheduler's (CrawlScheduler::
// Admitted, the origin's durable record), so it parks with the origin.
// Per registrable domain: one hash-map node and bucket (~40 bytes), only
// with max_pages_per_domain set.
// Per distinct origin + path that had a URL with a query: one 8-byte slot in
// an open-addressing table kept between 3/8 and 3/4 full, i.e. 10.7 to 21.3
// bytes, only with max_query_variants set. The slot packs a 48-bit tag of
// the path hash with a 16-bit count (hence max_query_variants <= 65535); two
// paths sharing a tag share one counter, which with 10^8 paths happens to
// about 18 pairs and at worst caps them together a little early.
//
// Thread-safety: none; owned and called by the broker thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "frontier/frontier_options.h"

namespace zcrawl::frontier {


class AdmissionLimits {
 public:
  static constexpr uint32_t kMaxQueryVariants = 65535;
  // Admit's reason for a URL over max_query_variants.
  static constexpr std::string_view kQueryVariants = "query_variants";

  // max_query_variants above kMaxQueryVariants is clamped to it.
  explicit AdmissionLimits(AdmissionLimitsOptions options);
  ~AdmissionLimits();
  AdmissionLimits(const AdmissionLimits&) = delete;
  AdmissionLimits& operator=(const AdmissionLimits&) = delete;

  // `url`: normalised absolute URL, new to the crawl; `origin`: its origin
  // key (Url::origin_key()); `origin_admitted`: the URLs admitted for that
  // origin so far, asked only with max_pages_per_host set (the caller
  // enqueues the URL when admitted, which counts it there). Returns "" and
  // counts the URL against every other cap, or the first cap it would
  // exceed ("max_pages", "max_pages_per_host", "max_pages_per_domain",
  // "query_variants") and counts nothing.
  std::string_view Admit(std::string_view url, std::string_view origin,
                         const std::function<uint64_t()>& origin_admitted);
  // Counts `admitted` URLs of one origin admitted by an earlier run (from
  // the saved origin records) against max_pages and max_pages_per_domain.
  // Query variants are not saved: after a resume each origin + path may
  // admit up to max_query_variants more (restoring them would need a scan
  // of every known URL; the cap is a trap guard, not a quota).
  void RestoreOrigin(std::string_view origin, uint64_t admitted);

  uint64_t admitted() const { return admitted_; }
  uint64_t tracked_domains() const { return per_domain_.size(); }
  uint64_t tracked_paths() const;
  // Approximate heap bytes of the counters.
  uint64_t memory_bytes() const;

 private:
  class PathCounters;  // 48-bit tag + 16-bit count slots (admission_limits.cc)

  // The counters `url` and `origin` use (null / 0 where no cap applies).
  uint64_t* DomainCounter(std::string_view origin);
  uint64_t PathHash(std::string_view url) const;

  AdmissionLimitsOptions options_;
  uint64_t admitted_ = 0;
  std::unordered_map<uint64_t, uint64_t> per_domain_;  // domain hash -> admitted
  std::unique_ptr<PathCounters> per_path_;             // null: no query cap
};

}  // namespace zcrawl::frontier

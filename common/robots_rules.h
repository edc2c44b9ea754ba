// RobotsRules: the robots.txt rules (RFC 9309) that apply to one crawler on
// one host, already reduced to the groups matching that crawler.
//
// A fetcher downloads /robots.txt and calls Parse() with the crawler's product
// token; the result is a small value that can be Serialize()d into a message
// and applied by the frontier with IsAllowed() when it schedules URLs.
//
// Parsing (tolerant, never fails):
//   - Only the first kMaxBodyBytes octets are read; a line cut by that limit is
//     dropped rather than parsed half (half a path could disallow too much).
//   - A UTF-8 BOM, comments (#...), CR / LF / CRLF line ends, NULs and other
//     binary junk are tolerated; unknown keys and malformed lines are skipped.
//     Keys are case-insensitive; "key value" without a colon is accepted when
//     the value is a single word; a few common misspellings are accepted
//     ("useragent", "user agent", "disalow", "dissallow", "site-map", ...).
//   - A group is one or more user-agent lines followed by its members
//     (allow / disallow / crawl-delay); a user-agent line after a member starts
//     a new group. Members before the first user-agent line are ignored.
//   - Groups whose user-agent product token (the leading run of [A-Za-z_-]
//     of the value) equals the crawler's product token, case-insensitively,
//     are merged. If there are none, the "*" groups are merged. If there are
//     none either, everything is allowed.
//   - Crawl-delay: non-negative decimal seconds ("10", "0.5", ".5"); anything
//     else is ignored. Taken from the merged groups only; if several groups
//     give one, the largest wins. Clamped to kMaxCrawlDelaySeconds.
//   - Sitemap lines are global: collected from anywhere in the file, in order,
//     exact duplicates dropped, at most kMaxSitemaps kept.
//
// Matching (IsAllowed):
//   - The argument is the URL's path plus "?query" ("/a/b?x=1"); "" means "/".
//   - Patterns and paths are normalised the same way: %XX of unreserved
//     characters (A-Z a-z 0-9 - . _ ~) is decoded, other %XX get upper-case
//     hex, a '%' not followed by two hex digits becomes "%25", and raw octets
//     outside printable ASCII (controls, space, DEL, >= 0x80) are written as
//     %XX. So "/ä", "/%c3%a4" and "/%C3%A4" are all the same, as are "/~foo"
//     and "/%7Efoo".
//   - A pattern not starting with '/' or '*' gets a leading '/'. '*' matches
//     any run of octets; a '$' as the last character anchors the end; a '$'
//     elsewhere is literal. Otherwise a pattern matches a prefix of the path.
//   - The matching rule with the longest normalised pattern (in octets,
//     counting '*' and '$') wins; Allow wins a tie; no match means allowed.
//     Empty Allow / Disallow values are no rule. "/robots.txt" is always
//     allowed. Matching one rule costs O(len(pattern) * len(path)) at worst
//     (greedy two-pointer wildcard match), never exponential.
//
// Thread safety: an immutable value after construction; const methods are
// safe to call concurrently. Copy and move freely.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace zcrawl {

class RobotsRules {
 public:
  // Octets of a robots.txt body that are parsed (RFC 9309 asks for >= 500 KiB).
  static constexpr std::size_t kMaxBodyBytes = 512000;
  // A site asking for more than this gets this: one page a minute.
  static constexpr double kMaxCrawlDelaySeconds = 60.0;
  // More sitemap URLs than this are dropped, to keep messages small.
  static constexpr std::size_t kMaxSitemaps = 1000;

  struct Rule {
    bool allow = false;
    // Normalised pattern as described above, never empty; may end in '$'.
    std::string pattern;

    bool operator==(const Rule&) const = default;
  };

  // Allows everything (no rules).
  RobotsRules() = default;

  // Parses `body` for the crawler identified by `product_token` (e.g.
  // "zcrawl"; a full "zcrawl/1.0 (+url)" is reduced to its product token).
  static RobotsRules Parse(std::string_view body, std::string_view product_token);
  static RobotsRules AllowAll();
  // Disallow: / (what RFC 9309 asks for when robots.txt is unreachable).
  static RobotsRules DisallowAll();

  // `path_and_query` is e.g. "/a/b?x=1", raw or percent-encoded.
  bool IsAllowed(std::string_view path_and_query) const;

  std::optional<double> crawl_delay_seconds() const { return crawl_delay_seconds_; }
  const std::vector<std::string>& sitemaps() const { return sitemaps_; }
  // The applicable rules, most specific first (the order IsAllowed tries them).
  const std::vector<Rule>& rules() const { return rules_; }

  // Compact binary encoding for messages and storage:
  // Deserialize(Serialize(x)) == x. Deserialize returns DataLoss on bad input.
  std::string Serialize() const;
  static Result<RobotsRules> Deserialize(std::string_view data);

  bool operator==(const RobotsRules&) const = default;

  // Heap bytes the rules hold (what a crawl pays per origin for them).
  std::size_t memory_bytes() const;

 private:
  // Sorts rules_ into matching order: longer pattern first, Allow before
  // Disallow at equal length.
  void SortRules();

  std::vector<Rule> rules_;
  std::optional<double> crawl_delay_seconds_;
  std::vector<std::string> sitemaps_;
};

// The part of `url` that robots.txt rules match (IsAllowed's argument): its
// path and "?query" without the fragment. "http://h/a?b#f" -> "/a?b",
// "http://h?b" -> "/?b", "http://h" -> "/", "/a#f" -> "/a". Not a URL
// parser: the crawler's URLs are normalised already, and `./run inspect
// robots` takes what a person typed; both ask this one function. The result
// views `url`, or `scratch` when a '/' had to be put in front.
std::string_view RobotsTarget(std::string_view url, std::string& scratch);

}  // namespace zcrawl

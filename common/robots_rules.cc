#include "common/robots_rules.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>
#include <utility>

#include "common/ascii.h"
#include "common/percent_encoding.h"

namespace zcrawl {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

std::string_view Trim(std::string_view s) { return TrimIf(s, IsSpace); }

// The leading run of [A-Za-z_-]: "zcrawl/1.0 (+http://x)" -> "zcrawl".
std::string_view ProductToken(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size()) {
    const char c = s[n];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    c == '_' || c == '-';
    if (!ok) break;
    ++n;
  }
  return s.substr(0, n);
}

bool IsUnreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

// The percent-encoding normalisation shared by patterns and paths; see the
// header. Idempotent: normalising a normalised string changes nothing.
std::string NormalisePercentEncoding(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 8);
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == '%') {
      const bool has_two = i + 2 < in.size();
      const int hi = has_two ? HexDigitValue(in[i + 1]) : -1;
      const int lo = has_two ? HexDigitValue(in[i + 2]) : -1;
      if (hi >= 0 && lo >= 0) {
        const auto decoded = static_cast<unsigned char>(hi * 16 + lo);
        if (IsUnreserved(decoded)) {
          out.push_back(static_cast<char>(decoded));
        } else {
          AppendPercentEncodedByte(out, decoded);
        }
        i += 2;
      } else {
        AppendPercentEncodedByte(out, '%');  // a lone '%' is a literal percent
      }
    } else if (c <= 0x20 || c >= 0x7F) {
      AppendPercentEncodedByte(out, c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string NormalisePattern(std::string_view value) {
  std::string pattern = NormalisePercentEncoding(value);
  if (!pattern.empty() && pattern.front() != '/' && pattern.front() != '*') {
    pattern.insert(pattern.begin(), '/');
  }
  return pattern;
}

std::string NormalisePath(std::string_view path_and_query) {
  std::string path = NormalisePercentEncoding(path_and_query);
  if (path.empty() || path.front() != '/') path.insert(path.begin(), '/');
  return path;
}

// Does `pattern` ('*' wildcards, optional final '$' anchor) match `path`
// (a prefix of it, unless anchored)? Greedy two-pointer matching: on a
// mismatch, retry from the most recent '*' swallowing one more octet. With
// '*' as the only wildcard, backtracking to the last '*' suffices, so this is
// O(len(pattern) * len(path)) in the worst case.
bool PatternMatches(std::string_view pattern, std::string_view path) {
  bool anchored = false;
  if (!pattern.empty() && pattern.back() == '$') {
    anchored = true;
    pattern.remove_suffix(1);
  }
  constexpr std::size_t kNone = std::string_view::npos;
  std::size_t p = 0;  // position in pattern
  std::size_t s = 0;  // position in path
  std::size_t star = kNone;
  std::size_t star_s = 0;  // path position the last '*' currently swallows to
  while (true) {
    if (p == pattern.size()) {
      if (!anchored || s == path.size()) return true;
    } else if (pattern[p] == '*') {
      star = p++;
      star_s = s;
      continue;
    } else if (s < path.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
      continue;
    }
    // Mismatch (or anchored pattern ended early): let the last '*' take one
    // more octet, if there is one left to take.
    if (star == kNone || star_s >= path.size()) return false;
    p = star + 1;
    s = ++star_s;
  }
}

enum class Key { kUserAgent, kAllow, kDisallow, kCrawlDelay, kSitemap, kUnknown };

Key ClassifyKey(std::string_view key) {
  struct Spelling {
    std::string_view text;
    Key key;
  };
  static constexpr Spelling kSpellings[] = {
      {"user-agent", Key::kUserAgent},  {"useragent", Key::kUserAgent},
      {"user agent", Key::kUserAgent},  {"user_agent", Key::kUserAgent},
      {"allow", Key::kAllow},           {"disallow", Key::kDisallow},
      {"dissallow", Key::kDisallow},    {"dissalow", Key::kDisallow},
      {"disalow", Key::kDisallow},      {"diasllow", Key::kDisallow},
      {"disallaw", Key::kDisallow},     {"crawl-delay", Key::kCrawlDelay},
      {"crawldelay", Key::kCrawlDelay}, {"crawl delay", Key::kCrawlDelay},
      {"crawl_delay", Key::kCrawlDelay}, {"sitemap", Key::kSitemap},
      {"site-map", Key::kSitemap},
  };
  for (const Spelling& s : kSpellings) {
    if (EqualsIgnoreCaseAscii(key, s.text)) return s.key;
  }
  return Key::kUnknown;
}

// Splits one comment-free line into key and value. Accepts "key: value",
// "key:value" and, for a one-word value, "key value".
bool SplitLine(std::string_view line, std::string_view* key,
               std::string_view* value) {
  const std::size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    *key = Trim(line.substr(0, colon));
    *value = Trim(line.substr(colon + 1));
    return !key->empty();
  }
  std::size_t space = 0;
  while (space < line.size() && !IsSpace(line[space])) ++space;
  if (space == line.size()) return false;
  *key = line.substr(0, space);
  *value = Trim(line.substr(space));
  for (char c : *value) {
    if (IsSpace(c)) return false;  // too ambiguous to guess
  }
  return !value->empty();
}

// Non-negative decimal seconds: "10", "0.5", ".5", "3.". Anything else
// (signs, exponents, units, junk) is invalid.
std::optional<double> ParseCrawlDelay(std::string_view value) {
  std::size_t digits = 0;
  std::size_t dots = 0;
  for (char c : value) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.') {
      ++dots;
    } else {
      return std::nullopt;
    }
  }
  if (digits == 0 || dots > 1) return std::nullopt;
  // from_chars wants a digit before the point.
  std::string text(value);
  if (text.front() == '.') text.insert(text.begin(), '0');
  double seconds = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), seconds,
                      std::chars_format::fixed);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
  return std::min(seconds, RobotsRules::kMaxCrawlDelaySeconds);
}

bool IsGlobalAgent(std::string_view value) {
  return !value.empty() && value.front() == '*' &&
         (value.size() == 1 || IsSpace(value[1]));
}

// Collects the members of the groups that apply to one product token.
class GroupCollector {
 public:
  using Rule = RobotsRules::Rule;

  explicit GroupCollector(std::string_view product_token)
      : token_(ProductToken(product_token)) {}

  void OnUserAgent(std::string_view value) {
    if (!in_agent_lines_) {  // first user-agent line of a new group
      in_agent_lines_ = true;
      seen_group_ = true;
      current_specific_ = false;
      current_global_ = false;
    }
    if (IsGlobalAgent(value)) {
      current_global_ = true;
    } else {
      const std::string_view agent = ProductToken(value);
      if (!token_.empty() && EqualsIgnoreCaseAscii(agent, token_)) {
        current_specific_ = true;
        any_specific_ = true;
      }
    }
  }

  void OnRule(bool allow, std::string_view value) {
    in_agent_lines_ = false;
    if (!seen_group_ || value.empty()) return;
    if (!current_specific_ && !current_global_) return;
    Rule rule{allow, NormalisePattern(value)};
    if (current_specific_) specific_.rules.push_back(rule);
    if (current_global_) global_.rules.push_back(std::move(rule));
  }

  void OnCrawlDelay(std::string_view value) {
    in_agent_lines_ = false;
    if (!seen_group_) return;
    const std::optional<double> delay = ParseCrawlDelay(value);
    if (!delay) return;
    if (current_specific_) specific_.MergeDelay(*delay);
    if (current_global_) global_.MergeDelay(*delay);
  }

  // The merged specific groups if any group named our token, else the merged
  // "*" groups (possibly empty).
  void Finish(std::vector<Rule>* rules, std::optional<double>* delay) {
    Members& chosen = any_specific_ ? specific_ : global_;
    *rules = std::move(chosen.rules);
    *delay = chosen.delay;
  }

 private:
  struct Members {
    std::vector<Rule> rules;
    std::optional<double> delay;
    void MergeDelay(double d) { delay = std::max(delay.value_or(d), d); }
  };

  std::string_view token_;
  bool seen_group_ = false;
  bool in_agent_lines_ = false;
  bool current_specific_ = false;
  bool current_global_ = false;
  bool any_specific_ = false;
  Members specific_;
  Members global_;
};

}  // namespace

RobotsRules RobotsRules::Parse(std::string_view body,
                               std::string_view product_token) {
  if (body.size() > kMaxBodyBytes) {
    const bool cut_mid_line =
        body[kMaxBodyBytes] != '\n' && body[kMaxBodyBytes] != '\r';
    body = body.substr(0, kMaxBodyBytes);
    if (cut_mid_line) {
      const std::size_t last_end = body.find_last_of("\r\n");
      body = last_end == std::string_view::npos ? std::string_view()
                                                : body.substr(0, last_end);
    }
  }
  if (body.starts_with(kUtf8Bom)) body.remove_prefix(kUtf8Bom.size());

  RobotsRules result;
  GroupCollector groups(product_token);
  while (!body.empty()) {
    const std::size_t end = body.find_first_of("\r\n");
    std::string_view line = body.substr(0, end);
    body.remove_prefix(end == std::string_view::npos ? body.size() : end + 1);

    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = Trim(line);
    std::string_view key;
    std::string_view value;
    if (line.empty() || !SplitLine(line, &key, &value)) continue;

    switch (ClassifyKey(key)) {
      case Key::kUserAgent:
        groups.OnUserAgent(value);
        break;
      case Key::kAllow:
        groups.OnRule(/*allow=*/true, value);
        break;
      case Key::kDisallow:
        groups.OnRule(/*allow=*/false, value);
        break;
      case Key::kCrawlDelay:
        groups.OnCrawlDelay(value);
        break;
      case Key::kSitemap:
        if (!value.empty() && result.sitemaps_.size() < kMaxSitemaps &&
            std::find(result.sitemaps_.begin(), result.sitemaps_.end(), value) ==
                result.sitemaps_.end()) {
          result.sitemaps_.emplace_back(value);
        }
        break;
      case Key::kUnknown:
        break;
    }
  }
  groups.Finish(&result.rules_, &result.crawl_delay_seconds_);
  result.SortRules();
  return result;
}

RobotsRules RobotsRules::AllowAll() { return RobotsRules(); }

std::size_t RobotsRules::memory_bytes() const {
  // A string's heap block is its capacity and its terminator, none when
  // it fits the object itself (15 bytes in libstdc++).
  auto heap = [](const std::string& text) { return text.capacity() > 15 ? text.capacity() + 1 : 0; };
  std::size_t bytes = rules_.capacity() * sizeof(Rule) + sitemaps_.capacity() * sizeof(std::string);
  for (const Rule& rule : rules_) bytes += heap(rule.pattern);
  for (const std::string& sitemap : sitemaps_) bytes += heap(sitemap);
  return bytes;
}

RobotsRules RobotsRules::DisallowAll() {
  RobotsRules rules;
  rules.rules_.push_back(Rule{/*allow=*/false, "/"});
  return rules;
}

bool RobotsRules::IsAllowed(std::string_view path_and_query) const {
  if (rules_.empty()) return true;
  const std::string path = NormalisePath(path_and_query);
  const std::string_view path_only =
      std::string_view(path).substr(0, path.find('?'));
  if (path_only == "/robots.txt") return true;
  for (const Rule& rule : rules_) {  // most specific first
    if (PatternMatches(rule.pattern, path)) return rule.allow;
  }
  return true;
}

void RobotsRules::SortRules() {
  std::stable_sort(rules_.begin(), rules_.end(), [](const Rule& a, const Rule& b) {
    if (a.pattern.size() != b.pattern.size()) {
      return a.pattern.size() > b.pattern.size();
    }
    return a.allow && !b.allow;
  });
}

std::string_view RobotsTarget(std::string_view url, std::string& scratch) {
  if (const size_t scheme_end = url.find("://"); scheme_end != std::string_view::npos) {
    const std::string_view rest = url.substr(scheme_end + 3);
    const size_t path_start = rest.find_first_of("/?#");
    url = path_start == std::string_view::npos ? std::string_view() : rest.substr(path_start);
  }
  url = url.substr(0, url.find('#'));
  if (!url.empty() && url.front() == '/') return url;
  scratch.assign(1, '/');
  scratch.append(url);
  return scratch;
}

}  // namespace zcrawl

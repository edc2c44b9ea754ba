// RobotsRules' compact binary form, which fetchers send to the frontier
// in a robots.txt report and the frontier keeps per origin (robots_rules.h
// has the contract). Split from robots_rules.cc, which parses and matches.
// Deserialize never trusts its input: anything malformed is DataLoss.
#include <bit>
#include <cmath>
#include <cstdint>

#include "common/robots_rules.h"
#include "common/varint.h"

namespace zcrawl {
namespace {

constexpr std::string_view kSerializedMagic = "ZRR1";
constexpr std::uint8_t kFlagHasCrawlDelay = 0x01;

void PutBytes(std::string_view bytes, std::string* out) {
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  bool empty() const { return data_.empty(); }

  bool Byte(std::uint8_t* b) {
    if (data_.empty()) return false;
    *b = static_cast<std::uint8_t>(data_.front());
    data_.remove_prefix(1);
    return true;
  }

  bool Varint(std::uint64_t* v) {
    std::size_t offset = 0;
    if (!GetVarint(data_, &offset, v)) return false;
    data_.remove_prefix(offset);
    return true;
  }

  bool Fixed64(std::uint64_t* v) {
    if (data_.size() < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) {
      *v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(data_[i])) << (8 * i);
    }
    data_.remove_prefix(8);
    return true;
  }

  bool Bytes(std::string* out) {
    std::uint64_t n = 0;
    if (!Varint(&n) || n > data_.size()) return false;
    out->assign(data_.substr(0, n));
    data_.remove_prefix(n);
    return true;
  }

 private:
  std::string_view data_;
};

}  // namespace

// Layout: "ZRR1", flags byte, [crawl delay as 8 little-endian IEEE-754
// bytes], varint rule count, per rule {byte allow, varint length, pattern},
// varint sitemap count, per sitemap {varint length, url}.
std::string RobotsRules::Serialize() const {
  std::string out(kSerializedMagic);
  out.push_back(static_cast<char>(crawl_delay_seconds_ ? kFlagHasCrawlDelay : 0));
  if (crawl_delay_seconds_) {
    const auto bits = std::bit_cast<std::uint64_t>(*crawl_delay_seconds_);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(bits >> (8 * i)));
  }
  PutVarint(rules_.size(), &out);
  for (const Rule& rule : rules_) {
    out.push_back(rule.allow ? 1 : 0);
    PutBytes(rule.pattern, &out);
  }
  PutVarint(sitemaps_.size(), &out);
  for (const std::string& sitemap : sitemaps_) PutBytes(sitemap, &out);
  return out;
}

Result<RobotsRules> RobotsRules::Deserialize(std::string_view data) {
  if (!data.starts_with(kSerializedMagic)) {
    return DataLossError("robots rules: bad magic");
  }
  Reader in(data.substr(kSerializedMagic.size()));
  RobotsRules rules;

  std::uint8_t flags = 0;
  if (!in.Byte(&flags) || (flags & ~kFlagHasCrawlDelay) != 0) {
    return DataLossError("robots rules: bad flags");
  }
  if (flags & kFlagHasCrawlDelay) {
    std::uint64_t bits = 0;
    if (!in.Fixed64(&bits)) return DataLossError("robots rules: truncated crawl delay");
    const auto delay = std::bit_cast<double>(bits);
    if (!std::isfinite(delay) || delay < 0 || delay > kMaxCrawlDelaySeconds) {
      return DataLossError("robots rules: crawl delay out of range");
    }
    rules.crawl_delay_seconds_ = delay;
  }

  std::uint64_t rule_count = 0;
  if (!in.Varint(&rule_count)) return DataLossError("robots rules: truncated rule count");
  for (std::uint64_t i = 0; i < rule_count; ++i) {
    std::uint8_t allow = 0;
    Rule rule;
    if (!in.Byte(&allow) || allow > 1 || !in.Bytes(&rule.pattern) ||
        rule.pattern.empty()) {
      return DataLossError("robots rules: bad rule");
    }
    rule.allow = allow == 1;
    rules.rules_.push_back(std::move(rule));
  }

  std::uint64_t sitemap_count = 0;
  if (!in.Varint(&sitemap_count)) {
    return DataLossError("robots rules: truncated sitemap count");
  }
  for (std::uint64_t i = 0; i < sitemap_count; ++i) {
    std::string sitemap;
    if (!in.Bytes(&sitemap)) return DataLossError("robots rules: bad sitemap");
    rules.sitemaps_.push_back(std::move(sitemap));
  }
  if (!in.empty()) return DataLossError("robots rules: trailing bytes");
  rules.SortRules();
  return rules;
}

}  // namespace zcrawl

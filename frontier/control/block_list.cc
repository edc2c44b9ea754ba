#include "frontier/control/block_list.h"

#include <string>

namespace zcrawl::frontier {

Result<bool> BlockList::Add(v1::BlockRule rule) {
  auto target = NormaliseTarget(rule.target(), /*allow_regex=*/true);
  if (!target.ok()) return target.status();
  *rule.mutable_target() = std::move(*target);
  if (Find(rule.target()) != nullptr) return false;
  auto entry = std::make_unique<Entry>();
  if (rule.target().what_case() == v1::Target::kUrlRegex) {
    auto* compiled = new regex_t;
    if (regcomp(compiled, rule.target().url_regex().c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
      delete compiled;  // NormaliseTarget compiled it already; kept for safety
      return InvalidArgumentError("pattern does not compile: " + rule.target().url_regex());
    }
    entry->regex = std::shared_ptr<regex_t>(compiled, [](regex_t* r) {
      regfree(r);
      delete r;
    });
  }
  entry->rule = std::move(rule);
  rules_.push_back(std::move(entry));
  Reindex();
  return true;
}

bool BlockList::Remove(const v1::Target& target) {
  auto normal = NormaliseTarget(target, /*allow_regex=*/true);
  if (!normal.ok()) return false;
  Entry* entry = Find(*normal);
  if (entry == nullptr) return false;
  std::erase_if(rules_, [&](const std::unique_ptr<Entry>& e) { return e.get() == entry; });
  Reindex();
  return true;
}

const v1::BlockRule* BlockList::Match(std::string_view url, std::string_view origin) {
  if (rules_.empty()) return nullptr;
  Entry* hit = nullptr;
  if (Entry** by_origin = by_origin_.Find(origin)) hit = *by_origin;
  if (hit == nullptr && !patterns_.empty()) {
    const std::string text(url);  // regexec wants a terminated string
    for (Entry* pattern : patterns_) {
      if (regexec(pattern->regex.get(), text.c_str(), 0, nullptr, 0) == 0) {
        hit = pattern;
        break;
      }
    }
  }
  if (hit == nullptr) return nullptr;
  hit->rule.set_blocked_urls(hit->rule.blocked_urls() + 1);
  return &hit->rule;
}

void BlockList::CountBlocked(std::string_view origin, uint64_t n) {
  if (Entry** entry = by_origin_.Find(origin)) (*entry)->rule.set_blocked_urls((*entry)->rule.blocked_urls() + n);
}

std::vector<v1::BlockRule> BlockList::Rules() const {
  std::vector<v1::BlockRule> rules;
  rules.reserve(rules_.size());
  for (const auto& entry : rules_) rules.push_back(entry->rule);
  return rules;
}

BlockList::Entry* BlockList::Find(const v1::Target& target) {
  for (const auto& entry : rules_) {
    const v1::Target& t = entry->rule.target();
    if (t.what_case() == target.what_case() && DescribeTarget(t) == DescribeTarget(target)) return entry.get();
  }
  return nullptr;
}

void BlockList::Reindex() {
  by_origin_ = {};
  patterns_.clear();
  for (const auto& entry : rules_) {
    if (entry->regex) {
      patterns_.push_back(entry.get());
    } else {
      by_origin_.Set(entry->rule.target(), entry.get());
    }
  }
}

}  // namespace zcrawl::frontier

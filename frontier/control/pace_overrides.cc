#include "frontier/control/pace_overrides.h"

namespace zcrawl::frontier {

Status PaceOverrides::Set(v1::PolitenessRule rule) {
  auto target = NormaliseTarget(rule.target(), /*allow_regex=*/false);
  if (!target.ok()) return target.status();
  if (!rule.has_delay_ms() && !rule.has_per_host()) {
    return InvalidArgumentError("an override needs --delay-ms or --per-host (or --clear)");
  }
  if (rule.has_per_host() && rule.per_host() == 0) {
    return InvalidArgumentError("--per-host 0 would stop the origin: block it instead");
  }
  *rule.mutable_target() = std::move(*target);
  const std::string key = DescribeTarget(rule.target());
  std::erase_if(rules_, [&](const v1::PolitenessRule& r) { return DescribeTarget(r.target()) == key; });
  rules_.push_back(std::move(rule));
  Reindex();
  return Status::Ok();
}

bool PaceOverrides::Clear(const v1::Target& target) {
  auto normal = NormaliseTarget(target, /*allow_regex=*/false);
  if (!normal.ok()) return false;
  const std::string key = DescribeTarget(*normal);
  const size_t erased =
      std::erase_if(rules_, [&](const v1::PolitenessRule& r) { return DescribeTarget(r.target()) == key; });
  Reindex();
  return erased > 0;
}

const v1::PolitenessRule* PaceOverrides::Of(const v1::Target& target) const {
  const std::string key = DescribeTarget(target);
  for (const auto& rule : rules_) {
    if (DescribeTarget(rule.target()) == key) return &rule;
  }
  return nullptr;
}

void PaceOverrides::Reindex() {
  by_origin_ = {};
  for (const auto& rule : rules_) by_origin_.Set(rule.target(), rule);
}

}  // namespace zcrawl::frontier

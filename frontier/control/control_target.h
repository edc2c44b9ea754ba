// ControlTarget: what an operator's block or politeness override applies
// to (v1::Target, zcrawl.proto): one origin, a domain with its subdomains,
// or (blocks only) the URLs a pattern matches. One definition of how a
// target is written, checked and matched, for the frontier and the tools.
//
// Written forms (ParseTarget, what `./run control` takes):
//   https://shop.example.com[:port]  an origin: that scheme, host and port
//   example.com                      a domain: the host and every subdomain
//   re:PATTERN                       URLs PATTERN matches (POSIX extended,
//                                    searched anywhere, as --deny's)
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "common/status.h"
#include "common/url.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// The target `text` names, normalised (an origin as the scheduler keys it,
// a domain lower-cased without a leading "*." or "."), or why it cannot be.
Result<v1::Target> ParseTarget(std::string_view text);
// The same check for a target that came as a message: normalised, or why
// not. `allow_regex`: false where only origins and domains make sense.
Result<v1::Target> NormaliseTarget(const v1::Target& target, bool allow_regex);
// The written form back (ParseTarget(Describe(t)) == t).
std::string DescribeTarget(const v1::Target& target);

// Origin and domain targets to a value each, found for an origin in a few
// hash lookups: its origin first, then its host and each parent domain,
// the most specific first.
template <typename Value>
class OriginTargetMap {
 public:
  // Replaces what `target` (an origin or a domain) had.
  void Set(const v1::Target& target, Value value) { MapOf(target)[KeyOf(target)] = std::move(value); }
  bool Erase(const v1::Target& target) { return MapOf(target).erase(KeyOf(target)) > 0; }
  bool empty() const { return origins_.empty() && domains_.empty(); }
  const Value* Find(std::string_view origin) const { return const_cast<OriginTargetMap*>(this)->Find(origin); }
  Value* Find(std::string_view origin) {
    if (auto it = origins_.find(std::string(origin)); it != origins_.end()) return &it->second;
    if (domains_.empty()) return nullptr;
    std::string_view host = HostOfOrigin(origin);
    while (!host.empty()) {
      if (auto it = domains_.find(std::string(host)); it != domains_.end()) return &it->second;
      const size_t dot = host.find('.');
      if (dot == std::string_view::npos) break;
      host.remove_prefix(dot + 1);
    }
    return nullptr;
  }

 private:
  std::unordered_map<std::string, Value>& MapOf(const v1::Target& t) {
    return t.what_case() == v1::Target::kOrigin ? origins_ : domains_;
  }
  static const std::string& KeyOf(const v1::Target& t) {
    return t.what_case() == v1::Target::kOrigin ? t.origin() : t.domain();
  }
  std::unordered_map<std::string, Value> origins_;
  std::unordered_map<std::string, Value> domains_;
};

}  // namespace zcrawl::frontier

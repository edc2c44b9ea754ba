#include "frontier/control/control_target.h"

#include <regex.h>

#include <algorithm>
#include <cctype>

#include "common/url.h"

namespace zcrawl::frontier {
namespace {

constexpr std::string_view kRegexPrefix = "re:";

Result<std::string> NormaliseOrigin(std::string_view text) {
  auto url = Url::Parse(text);
  if (!url.ok()) return InvalidArgumentError("'" + std::string(text) + "' is not a URL: " + url.status().message());
  if (url->scheme() != "http" && url->scheme() != "https") {
    return InvalidArgumentError("'" + std::string(text) + "': only http and https origins are crawled");
  }
  if (url->pathname() != "/" || !url->search().empty()) {
    return InvalidArgumentError("'" + std::string(text) +
                                "' has a path or query: an origin is scheme://host[:port] (re:PATTERN for URLs)");
  }
  return url->origin_key();
}

Result<std::string> NormaliseDomain(std::string_view text) {
  std::string domain(text);
  std::transform(domain.begin(), domain.end(), domain.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (domain.starts_with("*.")) domain.erase(0, 2);
  if (domain.starts_with(".")) domain.erase(0, 1);
  if (domain.ends_with(".")) domain.pop_back();
  // Through the URL parser, so the domain is spelled as hosts are (an IDN
  // in punycode) and a typo such as "a b.com" is refused.
  if (domain.empty() || domain.find_first_of(":/?#@[]\\") != std::string::npos) {
    return InvalidArgumentError("'" + std::string(text) + "' is not a domain name");
  }
  auto url = Url::Parse("http://" + domain + "/");
  if (!url.ok() || url->hostname().empty()) {
    return InvalidArgumentError("'" + std::string(text) + "' is not a domain name");
  }
  return std::string(url->hostname());
}

Status CheckRegex(const std::string& pattern) {
  if (pattern.empty()) return InvalidArgumentError("an empty URL pattern would match every URL");
  regex_t probe;
  const int rc = regcomp(&probe, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char message[256];
    regerror(rc, &probe, message, sizeof message);
    return InvalidArgumentError("'" + pattern + "' is not a valid POSIX extended regex: " + message);
  }
  regfree(&probe);
  return Status::Ok();
}

}  // namespace

Result<v1::Target> ParseTarget(std::string_view text) {
  v1::Target target;
  if (text.starts_with(kRegexPrefix)) {
    target.set_url_regex(std::string(text.substr(kRegexPrefix.size())));
  } else if (text.find("://") != std::string_view::npos) {
    target.set_origin(std::string(text));
  } else {
    target.set_domain(std::string(text));
  }
  return NormaliseTarget(target, /*allow_regex=*/true);
}

Result<v1::Target> NormaliseTarget(const v1::Target& target, bool allow_regex) {
  v1::Target out;
  switch (target.what_case()) {
    case v1::Target::kOrigin: {
      auto origin = NormaliseOrigin(target.origin());
      if (!origin.ok()) return origin.status();
      out.set_origin(*origin);
      return out;
    }
    case v1::Target::kDomain: {
      auto domain = NormaliseDomain(target.domain());
      if (!domain.ok()) return domain.status();
      out.set_domain(*domain);
      return out;
    }
    case v1::Target::kUrlRegex:
      if (!allow_regex) return InvalidArgumentError("a URL pattern cannot take an override: name an origin or a domain");
      if (Status s = CheckRegex(target.url_regex()); !s.ok()) return s;
      out.set_url_regex(target.url_regex());
      return out;
    case v1::Target::WHAT_NOT_SET:
      break;
  }
  return InvalidArgumentError("no target: name an origin (https://host), a domain (example.com) or re:PATTERN");
}

std::string DescribeTarget(const v1::Target& target) {
  switch (target.what_case()) {
    case v1::Target::kOrigin:
      return target.origin();
    case v1::Target::kDomain:
      return target.domain();
    case v1::Target::kUrlRegex:
      return std::string(kRegexPrefix) + target.url_regex();
    case v1::Target::WHAT_NOT_SET:
      break;
  }
  return "(none)";
}

}  // namespace zcrawl::frontier

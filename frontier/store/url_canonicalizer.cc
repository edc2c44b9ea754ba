#include "frontier/store/url_canonicalizer.h"

#include <algorithm>
#include <cstring>

namespace zcrawl::frontier {
namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// `text` equals the lower-case `word`, ASCII case ignored.
bool EqualsLower(std::string_view text, std::string_view word) {
  if (text.size() != word.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (Lower(text[i]) != word[i]) return false;
  }
  return true;
}

bool StartsWithLower(std::string_view text, std::string_view word) {
  return text.size() >= word.size() && EqualsLower(text.substr(0, word.size()), word);
}

bool IsAlnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool IsSessionParam(std::string_view name, std::string_view value) {
  if (name.empty()) return false;
  switch (Lower(name[0])) {  // most names fail here
    case 'a':
      return StartsWithLower(name, "aspsessionid");
    case 'c':
      return EqualsLower(name, "cfid") || EqualsLower(name, "cftoken");
    case 'j':
      return EqualsLower(name, "jsessionid");
    case 'p':
      return EqualsLower(name, "phpsessid");
    case 's':
      if (EqualsLower(name, "sid")) {
        return value.size() >= 16 && std::all_of(value.begin(), value.end(), IsAlnum);
      }
      return EqualsLower(name, "sessionid") || EqualsLower(name, "session_id");
    default:
      return false;
  }
}

// Glob match of a whole name: '*' is any run of characters; `pattern` is
// lower-case, `name` compared ignoring ASCII case. Backtracks to the last
// '*' only, so it is linear in practice.
bool GlobMatches(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && pattern[p] == Lower(name[n])) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string_view NameOf(std::string_view param) { return param.substr(0, param.find('=')); }

std::string_view ValueOf(std::string_view param) {
  const size_t eq = param.find('=');
  return eq == std::string_view::npos ? std::string_view() : param.substr(eq + 1);
}

// The ";jsessionid=..." path parameter in `path`: its start, or npos, and
// *end past its value (the next '/' or ';').
size_t FindJsessionid(std::string_view path, size_t* end) {
  for (size_t semi = path.find(';'); semi != std::string_view::npos; semi = path.find(';', semi + 1)) {
    if (!StartsWithLower(path.substr(semi + 1), "jsessionid=")) continue;
    *end = path.find_first_of("/;", semi + 1);
    if (*end == std::string_view::npos) *end = path.size();
    return semi;
  }
  return std::string_view::npos;
}

}  // namespace

UrlCanonicalizer::UrlCanonicalizer(UrlKeyRules rules) : rules_(std::move(rules)) {
  for (const std::string& pattern : rules_.drop_query_params) {
    if (pattern.empty()) continue;
    std::string lower(pattern);
    std::transform(lower.begin(), lower.end(), lower.begin(), Lower);
    drop_patterns_.push_back(std::move(lower));
  }
}

bool UrlCanonicalizer::Dropped(std::string_view name, std::string_view value) const {
  if (IsSessionParam(name, value)) return true;
  for (const std::string& pattern : drop_patterns_) {
    if (GlobMatches(pattern, name)) return true;
  }
  return false;
}

std::string_view UrlCanonicalizer::Canonical(std::string_view url, std::string* scratch) const {
  // Parts: [head = scheme, authority, path][?query][#fragment].
  const size_t hash = url.find('#');
  const std::string_view body = url.substr(0, hash);
  const std::string_view fragment = hash == std::string_view::npos ? std::string_view() : url.substr(hash);
  const size_t question = body.find('?');
  const std::string_view head = body.substr(0, question);
  const std::string_view query = question == std::string_view::npos ? std::string_view() : body.substr(question + 1);
  const size_t scheme_end = head.find("://");
  const size_t path_start = head.find('/', scheme_end == std::string_view::npos ? 0 : scheme_end + 3);
  const std::string_view path = path_start == std::string_view::npos ? std::string_view() : head.substr(path_start);

  size_t session_end = 0;
  const bool path_session =
      path.find(';') != std::string_view::npos && FindJsessionid(path, &session_end) != std::string_view::npos;
  // One pass over the parameters, allocating nothing: does the query change?
  bool query_changes = false;
  if (question != std::string_view::npos) {
    std::string_view previous_name;
    size_t start = 0;
    while (start <= query.size() && !query_changes) {
      const size_t amp = std::min(query.find('&', start), query.size());
      const std::string_view param = query.substr(start, amp - start);
      const std::string_view name = NameOf(param);
      if (rules_.sort_query_params && (param.empty() || name < previous_name)) query_changes = true;
      if (!param.empty() && Dropped(name, ValueOf(param))) query_changes = true;
      previous_name = name;
      start = amp + 1;
    }
  }
  if (!path_session && !query_changes) return url;

  scratch->clear();
  scratch->reserve(url.size());
  if (path_session) {
    std::string_view rest = path;
    *scratch += head.substr(0, path_start);
    for (size_t end = 0, at = FindJsessionid(rest, &end); at != std::string_view::npos;
         at = FindJsessionid(rest, &end)) {
      *scratch += rest.substr(0, at);
      rest = rest.substr(end);
    }
    *scratch += rest;
  } else {
    *scratch += head;
  }
  if (question != std::string_view::npos && !query_changes) {
    *scratch += '?';
    *scratch += query;
  } else if (question != std::string_view::npos) {
    std::vector<std::string_view> kept;
    size_t start = 0;
    while (start <= query.size()) {
      const size_t amp = std::min(query.find('&', start), query.size());
      const std::string_view param = query.substr(start, amp - start);
      // An empty parameter is kept unless sorting (then it means nothing).
      if (param.empty() ? !rules_.sort_query_params : !Dropped(NameOf(param), ValueOf(param))) {
        kept.push_back(param);
      }
      start = amp + 1;
    }
    if (rules_.sort_query_params) {
      std::stable_sort(kept.begin(), kept.end(),
                       [](std::string_view a, std::string_view b) { return NameOf(a) < NameOf(b); });
    }
    if (!kept.empty()) {
      *scratch += '?';
      for (size_t i = 0; i < kept.size(); ++i) {
        if (i > 0) *scratch += '&';
        *scratch += kept[i];
      }
    }
  }
  *scratch += fragment;
  return *scratch;
}

std::string UrlCanonicalizer::Canonical(std::string_view url) const {
  std::string scratch;
  return std::string(Canonical(url, &scratch));
}

UrlKey UrlCanonicalizer::KeyOf(std::string_view url) const {
  bool canonicalized = false;
  return KeyOf(url, &canonicalized);
}

UrlKey UrlCanonicalizer::KeyOf(std::string_view url, bool* canonicalized) const {
  std::string scratch;
  const std::string_view canonical = Canonical(url, &scratch);
  *canonicalized = canonical.data() != url.data() || canonical.size() != url.size();
  return UrlKey{UrlFingerprint(canonical), UrlSite(canonical)};
}

std::string UrlKeyRulesText(const UrlKeyRules& rules) {
  std::string text = "sort_query_params=" + std::string(rules.sort_query_params ? "1" : "0") + "\n";
  for (const std::string& pattern : rules.drop_query_params) text += "drop_query_params=" + pattern + "\n";
  return text;
}

UrlKeyRules ParseUrlKeyRules(std::string_view text) {
  UrlKeyRules rules;
  while (!text.empty()) {
    const size_t newline = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, newline);
    text = text.substr(std::min(newline + 1, text.size()));
    if (line == "sort_query_params=1") rules.sort_query_params = true;
    if (line.starts_with("drop_query_params=")) {
      rules.drop_query_params.emplace_back(line.substr(std::strlen("drop_query_params=")));
    }
  }
  return rules;
}

}  // namespace zcrawl::frontier

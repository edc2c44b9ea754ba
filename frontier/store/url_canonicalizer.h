// UrlCanonicalizer: the one definition of a URL's key in the seen set (and
// of every entry keyed by it: a recrawl's validators, the refetch
// schedule). Two URLs that differ only in what the canonical form leaves
// out are one URL to the crawl; the URL fetched is still the one found
// (the first of them), only its key is canonical.
//
// Always left out, as Heritrix's canonicalisation rules do: session ids,
// which give every visit its own URLs:
//   - the path parameter ;jsessionid=... (Java servlets);
//   - the query parameters jsessionid, phpsessid, sessionid, session_id,
//     aspsessionid* (IIS: ASPSESSIONIDQABCDEFG), cfid and cftoken
//     (ColdFusion), names compared ignoring ASCII case;
//   - sid, only with a value of at least 16 letters and digits: a short
//     sid is as often a site's or a section's id as a session.
// Optional (UrlKeyRules, off by default): query parameters sorted by name,
// and parameters dropped by name pattern (utm_* and friends).
//
// Stability: a URL none of the rules change keys exactly as before they
// existed (its text is hashed as it is), so stores written before stay
// valid; only URLs carrying a session id get a new key, and may be fetched
// once more after an upgrade. The optional rules change keys too, so a
// store keeps the rules it was created with (UrlStore::Open): turning one
// on for a resumed crawl is ignored with a warning (use --fresh), so one
// store never holds keys made two ways.
//
// Cost (bench/url_key_bench.cc, default rules): a URL without ';' in its
// path and without a query is returned untouched after a few character
// searches, about a tenth of the MD5 its key costs anyway; one with a query
// adds a scan of its parameter names; only a URL that changes allocates.
// Immutable after construction; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontier/frontier_options.h"
#include "frontier/store/url_fingerprint.h"

namespace zcrawl::frontier {

class UrlCanonicalizer {
 public:
  explicit UrlCanonicalizer(UrlKeyRules rules = {});

  // The canonical form of `url`, a normalised absolute URL: `url` itself
  // when no rule changes it, else a view of *scratch. A fragment is kept
  // (the crawl's URLs have none). A query left empty loses its '?'.
  std::string_view Canonical(std::string_view url, std::string* scratch) const;
  std::string Canonical(std::string_view url) const;

  // The seen-set key of `url`: its canonical form's fingerprint and site.
  UrlKey KeyOf(std::string_view url) const;
  // The same, telling whether the key is of a form other than `url`'s
  // text (a session id removed, an optional rule applied).
  UrlKey KeyOf(std::string_view url, bool* canonicalized) const;

  const UrlKeyRules& rules() const { return rules_; }

 private:
  // Whether the parameter `name` (=value) leaves the key.
  bool Dropped(std::string_view name, std::string_view value) const;

  UrlKeyRules rules_;
  std::vector<std::string> drop_patterns_;  // lower-cased
};

// The rules as text, one "key=value" a line, for the store to keep, and
// back. Parse ignores lines it does not know.
std::string UrlKeyRulesText(const UrlKeyRules& rules);
UrlKeyRules ParseUrlKeyRules(std::string_view text);

}  // namespace zcrawl::frontier

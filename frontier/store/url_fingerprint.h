// UrlFingerprint: the 64-bit identity of a URL's canonical form in the
// visited set (UrlCanonicalizer::KeyOf, the one place keys are made): the
// first 8 bytes of its MD5 digest.
//
// Collision math: with n URLs, the chance that any two share a fingerprint is
// about n^2 / 2^65. For 10^8 URLs that is 2.7e-4; for 10^9, 2.7% that one
// pair collides somewhere in the crawl, i.e. one URL in a billion wrongly
// skipped. MD5 (not a fast non-cryptographic hash) keeps adversarial pages
// from manufacturing collisions cheaply. Fingerprint 0 is reserved as the
// empty marker of hash tables and is mapped to 1.
//
// UrlKey adds the URL's site: a 32-bit hash of its scheme and authority
// (the text before the path), which prefixes the URL's key in the store's
// seen set so that one site's URLs are neighbours on disk. The links of a
// page are mostly to its own site, so one page's lookups of known URLs
// land in one or two blocks instead of one block each (url_store.h). The
// site adds nothing to identity: the resident filter and the known-URL
// cache use the fingerprint alone. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace zcrawl::frontier {

uint64_t UrlFingerprint(std::string_view normalized_url);

// FNV-1a over the URL up to its path ('/', '?' or '#' after "://"): the
// same for every URL of one origin. Stable across builds (it orders keys
// on disk).
uint32_t UrlSite(std::string_view normalized_url);

// A URL's key in the seen set; made by UrlCanonicalizer::KeyOf only.
struct UrlKey {
  uint64_t fingerprint = 0;
  uint32_t site = 0;
};

}  // namespace zcrawl::frontier

// UrlFingerprint: the 64-bit identity of a normalised URL in the visited set:
// the first 8 bytes of its MD5 digest.
//
// Collision math: with n URLs, the chance that any two share a fingerprint is
// about n^2 / 2^65. For 10^8 URLs that is 2.7e-4; for 10^9, 2.7% that one
// pair collides somewhere in the crawl, i.e. one URL in a billion wrongly
// skipped. MD5 (not a fast non-cryptographic hash) keeps adversarial pages
// from manufacturing collisions cheaply. Fingerprint 0 is reserved as the
// empty marker of hash tables and is mapped to 1. Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace zcrawl::frontier {

uint64_t UrlFingerprint(std::string_view normalized_url);

}  // namespace zcrawl::frontier

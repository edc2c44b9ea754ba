// The URLs of a srcset attribute (<img srcset>, <source srcset>, <link
// imagesrcset>), parsed as the HTML standard's "parse a srcset attribute"
// does: candidates split at commas outside parentheses, a URL ending in
// commas cut there, and a candidate whose descriptors are invalid (two
// densities, "0w", "1x 100w", an unknown unit, ...) dropped, as a browser
// drops it, so it is never fetched. Every valid candidate's URL counts, not
// only the one a browser would pick: a replay must serve whichever one its
// viewer's screen asks for. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zcrawl::fetcher {

// Appends the URL of each valid candidate in `srcset`, in order, as written
// (the caller resolves them).
void ParseSrcset(std::string_view srcset, std::vector<std::string>* urls);

}  // namespace zcrawl::fetcher

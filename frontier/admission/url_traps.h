// The trap guards ScopePolicy applies to a URL's parts: a path that repeats
// one segment (a loop of relative links: /a/b/a/b/a/b/...) and a query
// that grows a parameter per link. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace zcrawl::frontier {

// Whether one segment of `path` ("/a/b/a/", as serialised) occurs more than
// `max_repeat` times, anywhere in it (StormCrawler's maxPathRepetition
// counts the same way). Empty segments ("//") are not counted. Allocates
// nothing for paths of up to 64 segments.
bool PathRepeats(std::string_view path, uint32_t max_repeat);

// The parameters of `search` ("?a=1&b=2", or ""): its non-empty
// '&'-separated parts.
uint32_t QueryParamCount(std::string_view search);

}  // namespace zcrawl::frontier

// RunInspectRobots: the body of `./run inspect robots --agent UA FILE`, a
// debugging aid that answers "may this crawler fetch these URLs?" for one
// robots.txt file.
//
// Reads one URL per line from `urls` (a full URL such as
// "http://host/a?b=1" or just a path such as "/a?b=1"; blank lines are
// skipped, a trailing CR is ignored) and writes one line per URL to `out`:
// "allow" or "disallow". `agent` may be a product token ("zcrawl") or a full
// User-Agent string ("zcrawl/1.0 (+http://...)"). Returns the process exit
// code: 0, or 1 if `out` failed.
//
// Thread safety: a plain function; the streams must not be shared with other
// threads during the call.
#pragma once

#include <istream>
#include <ostream>
#include <string_view>

namespace zcrawl {

int RunInspectRobots(std::string_view robots_body, std::string_view agent,
                     std::istream& urls, std::ostream& out);

}  // namespace zcrawl

// The web console's page (console_server.h): one HTML file with its style
// and script, no external resources (no CDN: a crawl's machine may have
// no way out but the crawl), compiled into the frontier.
#pragma once

#include <string_view>

namespace zcrawl::frontier {

extern const std::string_view kConsolePage;

}  // namespace zcrawl::frontier

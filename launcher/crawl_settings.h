// DeclareCrawlSettings: the command line of `./run crawl`: the launcher's
// own settings (CrawlOptions) and, from their own definitions, every
// frontier, fetcher and writer setting (launcher/component_settings.h says
// how they are named and forwarded).
#pragma once

#include <CLI/CLI.hpp>

#include "launcher/component_settings.h"
#include "launcher/crawl_options.h"

namespace zcrawl::launcher {

void DeclareCrawlSettings(CLI::App& app, CrawlOptions& o, ForwardedSettings& forwarded);

}  // namespace zcrawl::launcher

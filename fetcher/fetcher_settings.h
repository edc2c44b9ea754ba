// DeclareFetcherSettings: every setting of a fetcher process, defined once
// (name, default from FetcherOptions, range, help). zcrawl-fetcher declares them on its
// command line; `./run crawl` declares the same definitions on its own and
// forwards them (launcher/component_settings.h); docs/CONFIG.md lists them.
#pragma once

#include "common/settings_declarer.h"
#include "fetcher/fetcher_options.h"

namespace zcrawl::fetcher {

void DeclareFetcherSettings(SettingsDeclarer& d, FetcherOptions& o);

}  // namespace zcrawl::fetcher

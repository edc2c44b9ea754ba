// DeclareFrontierSettings: every setting of a frontier process, defined once
// (name, default from FrontierOptions, range, help). zcrawl-frontier declares them on its
// command line; `./run crawl` declares the same definitions on its own and
// forwards them (launcher/component_settings.h); docs/CONFIG.md lists them.
#pragma once

#include "common/settings_declarer.h"
#include "frontier/frontier_options.h"

namespace zcrawl::frontier {

void DeclareFrontierSettings(SettingsDeclarer& d, FrontierOptions& o);

// The rules of the seen set's keys (part of the above), also declared by
// `./run inspect url`, which prints a URL's key.
void DeclareUrlKeySettings(SettingsDeclarer& d, UrlKeyRules& rules);

}  // namespace zcrawl::frontier

// DeclareWriterSettings: every setting of a writer process, defined once
// (name, default from WriterOptions, range, help). zcrawl-writer declares them on its
// command line; `./run crawl` declares the same definitions on its own and
// forwards them (launcher/component_settings.h); docs/CONFIG.md lists them.
#pragma once

#include "common/settings_declarer.h"
#include "writer/writer_options.h"

namespace zcrawl::writer {

void DeclareWriterSettings(SettingsDeclarer& d, WriterOptions& o);

}  // namespace zcrawl::writer

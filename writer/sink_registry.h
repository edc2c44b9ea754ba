// Sink registry: turns --format (e.g. "warc,jsonl") into sink objects.
// Adding a sink is one file plus one line in sink_registry.cc.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "writer/sink.h"
#include "writer/sink_options.h"

namespace zcrawl::writer {

// --format wacz: WARC output (one WarcSink, also when warc is named too)
// that `./run crawl` packs into OUT/crawl.wacz when the crawl finishes
// (wacz_pack.h); `./run pack` does the same for any WARC crawl.
inline constexpr std::string_view kWaczFormat = "wacz";
inline constexpr std::string_view kWaczFileName = "crawl.wacz";

// The formats a --format list names, in order: comma-separated, except
// that exec:CMD takes the rest of the list, commas included, as CMD
// ("warc,exec:sort -t, -k1" -> "warc", "exec:sort -t, -k1"). The launcher
// asks it whether wacz is wanted; MakeSinks makes a sink of each.
std::vector<std::string> FormatNames(std::string_view formats);

// InvalidArgument naming the unknown format and the known ones.
Result<std::vector<std::unique_ptr<Sink>>> MakeSinks(std::string_view formats,
                                                     const SinkOptions& options);

}  // namespace zcrawl::writer

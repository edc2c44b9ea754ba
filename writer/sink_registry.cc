#include "writer/sink_registry.h"

#include <functional>
#include <set>
#include <string>

#include "writer/exec_sink.h"
#include "writer/files_sink.h"
#include "writer/jsonl_sink.h"
#include "writer/warc_sink.h"

namespace zcrawl::writer {
namespace {

using Factory = std::function<std::unique_ptr<Sink>(const SinkOptions&)>;

struct Entry {
  std::string_view name;
  Factory make;
};

const std::vector<Entry>& Registry() {
  static const std::vector<Entry> entries = {
      {"files", [](const SinkOptions& o) { return std::make_unique<FilesSink>(o); }},
      {"jsonl", [](const SinkOptions& o) { return std::make_unique<JsonlSink>(o); }},
      {"warc",
       [](const SinkOptions& o) {
         return std::make_unique<WarcSink>(o, o.warc_gzip_level, RealClock::Get(), o.warc_threads);
       }},
  };
  return entries;
}

}  // namespace

Result<std::vector<std::unique_ptr<Sink>>> MakeSinks(std::string_view formats,
                                                     const SinkOptions& options) {
  std::vector<std::unique_ptr<Sink>> sinks;
  std::set<std::string_view> made;
  size_t start = 0;
  while (start <= formats.size()) {
    size_t comma = formats.find(',', start);
    if (comma == std::string_view::npos) comma = formats.size();
    const std::string_view name = formats.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    if (name.substr(0, kExecFormatPrefix.size()) == kExecFormatPrefix) {
      // exec:CMD takes the rest of the list, commas included, as CMD.
      const size_t name_at = comma - name.size();
      const std::string command(formats.substr(name_at + kExecFormatPrefix.size()));
      if (command.find_first_not_of(" \t") == std::string::npos) {
        return InvalidArgumentError("format 'exec:' needs a command, e.g. 'exec:gzip > pages.jsonl.gz'");
      }
      sinks.push_back(std::make_unique<ExecSink>(options, command));
      break;
    }
    // wacz is WARC output the launcher packs at the end of the crawl
    // (writer/wacz_pack.h): for the writer, one WARC sink either way.
    const std::string_view sink_name = name == kWaczFormat ? std::string_view("warc") : name;
    if (!made.insert(sink_name).second && sink_name == "warc") continue;
    const Entry* found = nullptr;
    for (const Entry& entry : Registry()) {
      if (entry.name == sink_name) found = &entry;
    }
    if (!found) {
      std::string known;
      for (const Entry& entry : Registry()) known += (known.empty() ? "" : ", ") + std::string(entry.name);
      known += ", " + std::string(kWaczFormat) + ", exec:CMD";
      return InvalidArgumentError("unknown format '" + std::string(name) + "' (known: " + known + ")");
    }
    sinks.push_back(found->make(options));
  }
  if (sinks.empty()) return InvalidArgumentError("no output format given");
  return sinks;
}

}  // namespace zcrawl::writer

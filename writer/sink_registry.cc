#include "writer/sink_registry.h"

#include "common/comma_list.h"

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

std::vector<std::string> FormatNames(std::string_view formats) {
  // An "exec:" that starts an item ends the list.
  size_t exec = std::string_view::npos;
  for (size_t at = formats.find(kExecFormatPrefix); at != std::string_view::npos;
       at = formats.find(kExecFormatPrefix, at + 1)) {
    if (at == 0 || formats[at - 1] == ',') {
      exec = at;
      break;
    }
  }
  std::vector<std::string> names = SplitCommaList(formats.substr(0, exec));
  if (exec != std::string_view::npos) names.emplace_back(formats.substr(exec));
  return names;
}

Result<std::vector<std::unique_ptr<Sink>>> MakeSinks(std::string_view formats,
                                                     const SinkOptions& options) {
  std::vector<std::unique_ptr<Sink>> sinks;
  std::set<std::string_view> made;
  for (const std::string& name : FormatNames(formats)) {
    if (std::string_view(name).starts_with(kExecFormatPrefix)) {
      const std::string command = name.substr(kExecFormatPrefix.size());
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

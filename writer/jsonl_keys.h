// Reading the "url" of every line of a JSON-lines file written by a sink
// (index.jsonl, pages.jsonl): how a restarted writer learns what is stored.
// Lines that are not JSON (a torn tail after a crash) are skipped.
#pragma once

#include <functional>
#include <string>

#include "common/status.h"

namespace zcrawl::writer {

// A missing file is an empty one.
Status ForEachJsonlUrl(const std::string& path, const std::function<void(const std::string&)>& visit);

// Cuts a file back to its last complete line ("\n"-terminated): a crash
// mid-append leaves a torn line that would glue onto the next one.
Status TruncateTornLine(const std::string& path);

}  // namespace zcrawl::writer

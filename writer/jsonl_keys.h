// Reading the page key of every line of a JSON-lines file written by a sink
// (index.jsonl, pages.jsonl): how a restarted writer learns what is stored.
// The key is the line's "key" when it has one (a continuous crawl's later
// rounds of a URL: v1::Page.dedup_key), else its "url". Lines that are not
// JSON (a torn tail after a crash) are skipped.
#pragma once

#include <functional>
#include <string>

#include "common/status.h"

namespace zcrawl::writer {

// A missing file is an empty one.
Status ForEachJsonlKey(const std::string& path, const std::function<void(const std::string&)>& visit);

}  // namespace zcrawl::writer

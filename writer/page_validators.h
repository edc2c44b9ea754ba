// PageValidators: what a later recrawl needs to ask a server whether a page
// changed (./run crawl --recrawl): its ETag and Last-Modified headers as the
// response carried them. Every sink's index keeps them (files index.jsonl,
// the WARC sidecar, pages.jsonl's headers), so any crawl can be recrawled
// conditionally. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "zcrawl.pb.h"

namespace zcrawl::writer {

struct PageValidators {
  std::string etag;           // "" when the response had none
  std::string last_modified;  // "" when the response had none
  int64_t fetched_at_ms = 0;  // the capture's time (a not-modified revisit's WARC-Refers-To-Date)
};

// The first ETag and Last-Modified header of `page` (names compared
// ASCII case-insensitively).
PageValidators PageValidatorsOf(const v1::Page& page);

// Whether `page` is a recrawl's "not modified": a 304 answer to a
// conditional request (Page.not_modified_since), which stores no body and
// says the earlier capture stands. One test for every sink, so that a page
// carrying the field with any other status is stored whole everywhere.
inline bool IsNotModifiedAnswer(const v1::Page& page) {
  return page.has_not_modified_since() && page.http_status() == 304;
}

}  // namespace zcrawl::writer

// PagePayload: the bulk of a page (its body, and the deflate streams of the
// WARC blocks its fetcher compressed), handed to a sink apart from the
// page's metadata. The writer takes it out of the page it received and
// gives it to the sinks; the page itself stays whole for the writer's own
// use (its key, its URL, the acknowledgement), so nothing is read after a
// move. A sink that keeps the bulk past the call (WARC's encoding threads)
// takes it without a copy. Plain data; thread-safe as a value.
#pragma once

#include <string>

#include "zcrawl.pb.h"

namespace zcrawl::writer {

struct PagePayload {
  std::string body;
  std::string warc_response;  // Page.warc_response.deflate
  std::string warc_request;   // Page.warc_request.deflate
  std::string warc_metadata;  // Page.warc_metadata.deflate
};

// Moves the bulk out of `page` (those fields are left empty; the blocks'
// other fields stay, so they still describe what the payload holds).
PagePayload TakePayload(v1::Page& page);
// Copies it: for callers that keep the page as it is (tests, tools).
PagePayload CopyPayload(const v1::Page& page);

}  // namespace zcrawl::writer

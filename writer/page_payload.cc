#include "writer/page_payload.h"

#include <utility>

namespace zcrawl::writer {

PagePayload TakePayload(v1::Page& page) {
  PagePayload payload;
  payload.body = std::move(*page.mutable_body());
  page.clear_body();
  // mutable_* only where present: it would add an empty message otherwise.
  if (page.has_warc_response()) payload.warc_response = std::move(*page.mutable_warc_response()->mutable_deflate());
  if (page.has_warc_request()) payload.warc_request = std::move(*page.mutable_warc_request()->mutable_deflate());
  if (page.has_warc_metadata()) payload.warc_metadata = std::move(*page.mutable_warc_metadata()->mutable_deflate());
  return payload;
}

PagePayload CopyPayload(const v1::Page& page) {
  return PagePayload{page.body(), page.warc_response().deflate(), page.warc_request().deflate(),
                     page.warc_metadata().deflate()};
}

}  // namespace zcrawl::writer

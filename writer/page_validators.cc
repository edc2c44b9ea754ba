#include "writer/page_validators.h"

#include "common/ascii.h"

namespace zcrawl::writer {

PageValidators PageValidatorsOf(const v1::Page& page) {
  PageValidators validators;
  validators.fetched_at_ms = page.fetched_at_ms();
  bool etag = false, last_modified = false;
  for (const v1::Header& header : page.headers()) {
    if (!etag && EqualsIgnoreCaseAscii(header.name(), "etag")) {
      validators.etag = header.value();
      etag = true;
    } else if (!last_modified && EqualsIgnoreCaseAscii(header.name(), "last-modified")) {
      validators.last_modified = header.value();
      last_modified = true;
    }
  }
  return validators;
}

}  // namespace zcrawl::writer

// The JSON form of a StatusReply: what `./run status --json` prints and
// the web console's /api/status carries as "status" (docs/OPERATING.md).
// One definition for both. Pure function; thread-safe.
#pragma once

#include <string>

#include "zcrawl.pb.h"

namespace zcrawl {

// `endpoint`: where the reply came from, kept as "frontier".
std::string StatusReplyJson(const v1::StatusReply& reply, const std::string& endpoint);

}  // namespace zcrawl

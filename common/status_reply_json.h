// The JSON form of a StatusReply: what `./run status --json` prints and
// the web console's /api/status carries as "status" (docs/OPERATING.md).
// One definition for both. Pure function; thread-safe.
#pragma once

#include <string>

#include "zcrawl.pb.h"

namespace zcrawl {

// `endpoint`: where the reply came from, kept as "frontier".
std::string StatusReplyJson(const v1::StatusReply& reply, const std::string& endpoint);

// A rate or amount with one decimal ("12.5"; 0 for NaN or below 0), as the
// JSON and `./run status`'s text both print it.
std::string FormatRate(double rate);

}  // namespace zcrawl

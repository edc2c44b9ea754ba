// Limits every speaker of the protocol (proto/zcrawl.proto) shares.
#pragma once

#include <cstdint>

namespace zcrawl {

// Largest envelope any zcrawl socket accepts; larger ones are dropped by
// ZeroMQ before they reach us (ZMQ_MAXMSGSIZE). Bodies are capped at 10 MiB
// by default; this leaves room for text and links. A WARC block restored
// from a message (warc/compressed_warc_blocks) can be no larger either.
inline constexpr int64_t kMaxEnvelopeBytes = 64ll << 20;

}  // namespace zcrawl

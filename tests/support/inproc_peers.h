// What node tests (broker, writer, fetcher, peer link) use to play the other
// processes over inproc://: endpoints no two tests share, and envelopes sent
// and received on a test's own DEALER or ROUTER socket without blocking.
//
// Thread-safety: UniqueInprocEndpoint is; a socket is its caller's alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <zmq.hpp>

#include "net/envelope_codec.h"
#include "zcrawl.pb.h"

namespace zcrawl::testing {

// "inproc://WHAT-N", N unique in the process.
std::string UniqueInprocEndpoint(std::string_view what);

// Sends `envelope` encoded by `codec`; to the peer `identity` on a ROUTER
// (non-empty identity), as is on a DEALER.
void SendEnvelope(zmq::socket_t& socket, EnvelopeCodec& codec, v1::Envelope envelope,
                  const std::string& identity = "");

// The next envelope waiting on `socket`, or nullopt at once if none is. A
// ROUTER's identity frame goes to *identity. Frames that do not decode
// are skipped (a test that wants them reads the socket itself).
std::optional<v1::Envelope> TryReceiveEnvelope(zmq::socket_t& socket, bool router,
                                               std::string* identity = nullptr);

}  // namespace zcrawl::testing

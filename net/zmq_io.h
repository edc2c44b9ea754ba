// ZeroMQ helpers: socket creation with zcrawl's defaults, and send/receive
// of envelope frames that never throw (cppzmq exceptions become Status).
//
// Framing: a DEALER sends one frame, the serialised envelope. A ROUTER sees
// [peer identity][envelope]. Anything else is malformed and dropped.
// A socket belongs to one thread; these functions add no locking.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>
#include <zmq.hpp>

#include "common/status.h"

namespace zcrawl {

struct SocketSettings {
  int linger_ms = 500;         // bounded linger so shutdown never hangs
  int send_hwm = 10000;        // queued outbound messages per peer
  int receive_hwm = 10000;
  bool router_mandatory = true;  // ROUTER: error on unknown peer, not silent drop
  std::string identity;        // DEALER: routing id (empty: let ZeroMQ pick)
};

// A ZeroMQ errno as a Status whose code says what to do next:
// ResourceExhausted (EMFILE, ENFILE, ENOMEM, ENOBUFS: back off),
// PermissionDenied, InvalidArgument (a malformed or impossible endpoint),
// else Unavailable (retry; EADDRINUSE says so in the message).
Status ZmqErrorStatus(int errnum, std::string message);

// Creates a socket of `type` with the settings above and ZMQ_MAXMSGSIZE.
Result<zmq::socket_t> MakeSocket(zmq::context_t& context, zmq::socket_type type,
                                 const SocketSettings& settings = {});

// Binds every endpoint of a comma-separated list ("tcp://127.0.0.1:5571" or
// "tcp://127.0.0.1:5571,ipc://@zcrawl-writer-5571"): one socket serving
// peers on several transports (./run crawl: its own fetchers over a Unix
// socket, tools over TCP).
Status Bind(zmq::socket_t& socket, const std::string& endpoints);
// The endpoints of a comma-separated list, empty items dropped.
std::vector<std::string> SplitEndpoints(std::string_view endpoints);
Status Connect(zmq::socket_t& socket, const std::string& endpoint);

// DEALER side: one frame.
Status SendFrame(zmq::socket_t& socket, std::string_view payload);
Status SendFrame(zmq::socket_t& socket, zmq::message_t payload);
// ROUTER side: identity frame + payload frame.
Status SendToPeer(zmq::socket_t& socket, std::string_view identity, std::string_view payload);

// Keep one per receiving loop and receive into it again: `payload` views
// `frame` (no copy of the bytes), so it lasts until the next receive into
// the same object, and moving the object (short frames live inside it)
// would leave it dangling.
struct InboundMessage {
  InboundMessage() = default;
  InboundMessage(InboundMessage&&) = delete;  // see above
  InboundMessage& operator=(InboundMessage&&) = delete;

  std::string identity;      // empty on a DEALER
  zmq::message_t frame;      // the payload frame as received
  std::string_view payload;  // its bytes
};

// Non-blocking receive of one logical message. Returns NotFound when nothing
// is waiting, InvalidArgument for a malformed multipart (already drained).
Status ReceiveMessage(zmq::socket_t& socket, bool from_router, InboundMessage* out);

// Takes up to `max` waiting messages without blocking, calling `handle` for
// each; a malformed one is logged, counted in *malformed and skipped.
// Stops early when `handle` returns false. The receive loop of every
// process (bounded, so the loop's other work interleaves).
void ReceiveWaiting(zmq::socket_t& socket, bool from_router, size_t max, uint64_t* malformed,
                    InboundMessage& message, const std::function<bool(InboundMessage&)>& handle);

}  // namespace zcrawl

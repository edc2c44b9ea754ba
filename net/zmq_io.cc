#include "net/zmq_io.h"

#include <cerrno>

#include "common/comma_list.h"

#include <spdlog/spdlog.h>

#include "net/envelope_codec.h"

namespace zcrawl {
namespace {

Status FromZmqError(const zmq::error_t& e, std::string_view what) {
  return ZmqErrorStatus(e.num(), std::string(what) + ": " + e.what());
}

}  // namespace

Status ZmqErrorStatus(int errnum, std::string message) {
  switch (errnum) {
    // Out of descriptors or memory: back off, as for a full disk.
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case ENOBUFS:
      return ResourceExhaustedError(std::move(message));
    case EACCES:
    case EPERM:
      return PermissionDeniedError(std::move(message));
    // The endpoint itself is wrong: a configuration error, not worth a retry.
    case EINVAL:
    case EPROTONOSUPPORT:
    case ENOCOMPATPROTO:
    case ENODEV:
    case EADDRNOTAVAIL:
      return InvalidArgumentError(std::move(message));
    case EADDRINUSE:
      return UnavailableError(std::move(message) + " (address in use)");
    // EAGAIN, EHOSTUNREACH, ETERM, EINTR and whatever else: the peer or the
    // network may come back; retry.
    default:
      return UnavailableError(std::move(message));
  }
}

Result<zmq::socket_t> MakeSocket(zmq::context_t& context, zmq::socket_type type,
                                 const SocketSettings& settings) {
  try {
    zmq::socket_t socket(context, type);
    socket.set(zmq::sockopt::linger, settings.linger_ms);
    socket.set(zmq::sockopt::sndhwm, settings.send_hwm);
    socket.set(zmq::sockopt::rcvhwm, settings.receive_hwm);
    socket.set(zmq::sockopt::maxmsgsize, kMaxEnvelopeBytes);
    if (type == zmq::socket_type::router && settings.router_mandatory) {
      socket.set(zmq::sockopt::router_mandatory, 1);
    }
    if (!settings.identity.empty()) socket.set(zmq::sockopt::routing_id, settings.identity);
    return socket;
  } catch (const zmq::error_t& e) {
    return FromZmqError(e, "creating socket");
  }
}

Status Bind(zmq::socket_t& socket, const std::string& endpoints) {
  for (const std::string& endpoint : SplitEndpoints(endpoints)) {
    try {
      socket.bind(endpoint);
    } catch (const zmq::error_t& e) {
      return FromZmqError(e, "binding " + endpoint);
    }
  }
  return Status::Ok();
}

std::vector<std::string> SplitEndpoints(std::string_view endpoints) { return SplitCommaList(endpoints); }

Status Connect(zmq::socket_t& socket, const std::string& endpoint) {
  try {
    socket.connect(endpoint);
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return FromZmqError(e, "connecting " + endpoint);
  }
}

Status SendFrame(zmq::socket_t& socket, std::string_view payload) {
  try {
    auto sent = socket.send(zmq::buffer(payload.data(), payload.size()), zmq::send_flags::dontwait);
    if (!sent) return UnavailableError("send queue full");
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return FromZmqError(e, "send");
  }
}

Status SendFrame(zmq::socket_t& socket, zmq::message_t payload) {
  try {
    auto sent = socket.send(payload, zmq::send_flags::dontwait);
    if (!sent) return UnavailableError("send queue full");
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return FromZmqError(e, "send");
  }
}

Status SendToPeer(zmq::socket_t& socket, std::string_view identity, std::string_view payload) {
  try {
    auto sent = socket.send(zmq::buffer(identity.data(), identity.size()),
                            zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    if (!sent) return UnavailableError("send queue full");
    socket.send(zmq::buffer(payload.data(), payload.size()), zmq::send_flags::dontwait);
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return FromZmqError(e, "send to peer");
  }
}

void ReceiveWaiting(zmq::socket_t& socket, bool from_router, size_t max, uint64_t* malformed,
                    InboundMessage& message, const std::function<bool(InboundMessage&)>& handle) {
  for (size_t i = 0; i < max; ++i) {
    Status s = ReceiveMessage(socket, from_router, &message);
    if (s.code() == StatusCode::kNotFound) return;
    if (!s.ok()) {
      ++*malformed;
      spdlog::warn("dropped message error={}", s.message());
      continue;
    }
    if (!handle(message)) return;
  }
}

Status ReceiveMessage(zmq::socket_t& socket, bool from_router, InboundMessage* out) {
  try {
    zmq::message_t frame;
    if (!socket.recv(frame, zmq::recv_flags::dontwait)) return NotFoundError("nothing to read");
    int frames = 1;
    out->identity.clear();
    out->payload = {};
    if (from_router) {
      out->identity.assign(static_cast<const char*>(frame.data()), frame.size());
      if (!frame.more()) return InvalidArgumentError("identity frame without payload");
      (void)socket.recv(frame, zmq::recv_flags::none);
      ++frames;
    }
    // Kept as received: a page's ~20 KB are not copied before decoding.
    out->frame = std::move(frame);
    out->payload = std::string_view(static_cast<const char*>(out->frame.data()), out->frame.size());
    bool extra = false;
    zmq::message_t rest;
    bool more = out->frame.more();
    while (more) {  // drain unexpected extra frames
      (void)socket.recv(rest, zmq::recv_flags::none);
      more = rest.more();
      ++frames;
      extra = true;
    }
    if (extra) return InvalidArgumentError("unexpected multipart of " + std::to_string(frames) + " frames");
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return FromZmqError(e, "receive");
  }
}

}  // namespace zcrawl

#include "tests/support/inproc_peers.h"

#include <atomic>

namespace zcrawl::testing {

std::string UniqueInprocEndpoint(std::string_view what) {
  static std::atomic<int> next{0};
  return "inproc://" + std::string(what) + "-" + std::to_string(next++);
}

void SendEnvelope(zmq::socket_t& socket, EnvelopeCodec& codec, v1::Envelope envelope,
                  const std::string& identity) {
  if (!identity.empty()) socket.send(zmq::buffer(identity), zmq::send_flags::sndmore);
  socket.send(zmq::buffer(codec.Encode(envelope)), zmq::send_flags::none);
}

std::optional<v1::Envelope> TryReceiveEnvelope(zmq::socket_t& socket, bool router, std::string* identity) {
  zmq::message_t frame;
  while (socket.recv(frame, zmq::recv_flags::dontwait)) {
    if (router) {
      if (identity) *identity = frame.to_string();
      (void)socket.recv(frame, zmq::recv_flags::none);
    }
    auto envelope = EnvelopeCodec::Decode(frame.to_string_view());
    if (envelope.ok()) return std::move(*envelope);
  }
  return std::nullopt;
}

}  // namespace zcrawl::testing

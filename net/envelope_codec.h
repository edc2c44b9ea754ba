// EnvelopeCodec: turns Envelope messages into bytes and back, stamping the
// protocol version, the sender id and a per-sender sequence number.
//
// Decode never trusts its input: bytes that do not parse, carry another
// protocol version, or have no payload come back as InvalidArgument so the
// caller can log, count and skip them. One codec per sending thread (the
// sequence counter is not atomic).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <zmq.hpp>

#include "common/status.h"
#include "proto/message_limits.h"
#include "zcrawl.pb.h"

namespace zcrawl {

class EnvelopeCodec {
 public:
  explicit EnvelopeCodec(std::string sender_id) : sender_id_(std::move(sender_id)) {}

  // Fills version, sender and sequence, then serialises.
  std::string Encode(v1::Envelope& envelope);
  // The same, serialised straight into a ZeroMQ message: one copy of a
  // page body fewer than Encode + send.
  zmq::message_t EncodeMessage(v1::Envelope& envelope);

  static Result<v1::Envelope> Decode(std::string_view bytes);

  const std::string& sender_id() const { return sender_id_; }

 private:
  std::string sender_id_;
  uint64_t next_sequence_ = 1;
};

// Name of the payload case, for logs ("page", "work_request", ...).
std::string_view PayloadName(const v1::Envelope& envelope);

}  // namespace zcrawl

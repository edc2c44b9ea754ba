#include "net/envelope_codec.h"


namespace zcrawl {

std::string EnvelopeCodec::Encode(v1::Envelope& envelope) {
  envelope.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  envelope.set_sender_id(sender_id_);
  envelope.set_sequence(next_sequence_++);
  return envelope.SerializeAsString();
}

zmq::message_t EnvelopeCodec::EncodeMessage(v1::Envelope& envelope) {
  envelope.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  envelope.set_sender_id(sender_id_);
  envelope.set_sequence(next_sequence_++);
  zmq::message_t message(envelope.ByteSizeLong());
  envelope.SerializeWithCachedSizesToArray(static_cast<uint8_t*>(message.data()));
  return message;
}

Result<v1::Envelope> EnvelopeCodec::Decode(std::string_view bytes) {
  if (static_cast<int64_t>(bytes.size()) > kMaxEnvelopeBytes) {
    return InvalidArgumentError("envelope of " + std::to_string(bytes.size()) +
                                " bytes exceeds the limit");
  }
  v1::Envelope envelope;
  if (!envelope.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return InvalidArgumentError("bytes are not a zcrawl envelope (" +
                                std::to_string(bytes.size()) + " bytes)");
  }
  if (envelope.protocol_version() != v1::PROTOCOL_VERSION_CURRENT) {
    return InvalidArgumentError("unsupported protocol version " +
                                std::to_string(envelope.protocol_version()));
  }
  if (envelope.payload_case() == v1::Envelope::PAYLOAD_NOT_SET) {
    return InvalidArgumentError("envelope without payload (unknown message type?)");
  }
  return envelope;
}

std::string_view PayloadName(const v1::Envelope& envelope) {
  switch (envelope.payload_case()) {
    case v1::Envelope::kReady: return "ready";
    case v1::Envelope::kHeartbeat: return "heartbeat";
    case v1::Envelope::kWorkRequest: return "work_request";
    case v1::Envelope::kWorkBatch: return "work_batch";
    case v1::Envelope::kFetchReport: return "fetch_report";
    case v1::Envelope::kShutdown: return "shutdown";
    case v1::Envelope::kPage: return "page";
    case v1::Envelope::kPageAck: return "page_ack";
    case v1::Envelope::kStatusRequest: return "status_request";
    case v1::Envelope::kStatusReply: return "status_reply";
    case v1::Envelope::kGoodbye: return "goodbye";
    case v1::Envelope::kReject: return "reject";
    case v1::Envelope::kSetThreads: return "set_threads";
    case v1::Envelope::kFetchReports: return "fetch_reports";
    case v1::Envelope::kPageAcks: return "page_acks";
    case v1::Envelope::PAYLOAD_NOT_SET: return "none";
  }
  return "unknown";
}

}  // namespace zcrawl

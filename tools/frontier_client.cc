#include "tools/frontier_client.h"

#include <chrono>
#include <filesystem>
#include <string>

#include <zmq.hpp>

#include "common/clock.h"
#include "common/crawl_beacon.h"
#include "common/process_identity.h"
#include "net/envelope_codec.h"
#include "net/zmq_io.h"

namespace zcrawl {

Result<std::string> FindFrontier(const std::string& out, bool out_given) {
  auto beacon = ReadCrawlBeacon(out + "/.zcrawl");
  if (!beacon.ok() && !out_given && !std::filesystem::exists(BeaconPath(out + "/.zcrawl"))) {
    return std::string(kDefaultFrontierEndpoint);
  }
  if (!beacon.ok()) {
    return NotFoundError("no crawl found in " + out + " (" + beacon.status().message() +
                         "); give the crawl's output folder, or --frontier ENDPOINT");
  }
  switch (CrawlBeaconState(*beacon, RealClock::Get().WallMs())) {
    case BeaconState::kStopped:
      return NotFoundError("no crawl running in " + out + "; it last ran until " +
                           FormatUtc(beacon->stopped_ms) + " (stopped)");
    case BeaconState::kSilent:
      return NotFoundError("no crawl running in " + out + "; it last ran until " +
                           FormatUtc(beacon->alive_ms) + " (it did not stop cleanly: killed, or its machine went down)");
    case BeaconState::kRunning:
      break;
  }
  return beacon->endpoints.front();
}

Status ResolveFrontier(const std::string& out, bool out_given, std::string* endpoint) {
  if (!endpoint->empty()) return Status::Ok();
  auto found = FindFrontier(out, out_given);
  if (!found.ok()) return found.status();
  *endpoint = *found;
  return Status::Ok();
}

Result<v1::StatusReply> AskFrontier(const FrontierAddress& address, const v1::StatusRequest& status_request) {
  zmq::context_t context(1);
  SocketSettings settings;
  settings.linger_ms = 0;  // nothing worth delivering after we give up
  settings.identity = "status-" + RandomHex(12);
  auto socket = MakeSocket(context, zmq::socket_type::dealer, settings);
  if (!socket.ok()) return socket.status();
  if (Status s = SecureClientSocket(*socket, address.security, address.security.frontier_key); !s.ok()) {
    return s;
  }
  if (Status s = Connect(*socket, address.endpoint); !s.ok()) return s;

  const std::string host = LocalHostName();
  EnvelopeCodec codec(MakeRunId("status-" + (host.empty() ? "unknown" : host)));
  v1::Envelope request;
  *request.mutable_status_request() = status_request;
  if (Status s = SendFrame(*socket, codec.Encode(request)); !s.ok()) return s;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(address.timeout_ms);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    zmq::pollitem_t item{static_cast<void*>(*socket), 0, ZMQ_POLLIN, 0};
    try {
      zmq::poll(&item, 1, left);
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) return UnavailableError("interrupted");
      return InternalError(std::string("poll: ") + e.what());
    }
    if (!(item.revents & ZMQ_POLLIN)) continue;
    InboundMessage message;
    Status s = ReceiveMessage(*socket, /*from_router=*/false, &message);
    if (s.code() == StatusCode::kNotFound) continue;
    if (!s.ok()) return s;
    auto envelope = EnvelopeCodec::Decode(message.payload);
    if (!envelope.ok()) return envelope.status();
    if (envelope->has_status_reply()) return std::move(*envelope->mutable_status_reply());
    if (envelope->has_reject()) {
      return PermissionDeniedError("the frontier refused: " + envelope->reject().reason());
    }
    // Anything else (a heartbeat, say) is not for us; keep waiting.
  }
  return DeadlineExceededError("no reply from the frontier at " + address.endpoint + " within " +
                               std::to_string(address.timeout_ms) + " ms (is it running?)");
}

}  // namespace zcrawl

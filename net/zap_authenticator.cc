#include "net/zap_authenticator.h"

#include <spdlog/spdlog.h>

#include <vector>

namespace zcrawl {

Result<std::unique_ptr<ZapAuthenticator>> ZapAuthenticator::Start(
    zmq::context_t& context, std::set<std::string> allowed_public_keys) {
  try {
    zmq::socket_t socket(context, zmq::socket_type::rep);
    socket.set(zmq::sockopt::linger, 0);
    socket.bind("inproc://zeromq.zap.01");
    return std::unique_ptr<ZapAuthenticator>(
        new ZapAuthenticator(std::move(socket), std::move(allowed_public_keys)));
  } catch (const zmq::error_t& e) {
    return UnavailableError(std::string("cannot start the ZAP handler: ") + e.what());
  }
}

ZapAuthenticator::ZapAuthenticator(zmq::socket_t socket, std::set<std::string> allowed)
    : socket_(std::move(socket)), allowed_(std::move(allowed)) {
  thread_ = std::thread([this] { Run(); });
}

ZapAuthenticator::~ZapAuthenticator() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void ZapAuthenticator::Run() {
  while (!stopping_) {
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    try {
      if (zmq::poll(&item, 1, std::chrono::milliseconds(200)) <= 0) continue;
      std::vector<zmq::message_t> frames;
      zmq::message_t frame;
      do {
        if (!socket_.recv(frame, zmq::recv_flags::none)) break;
        frames.emplace_back(std::move(frame));
      } while (frames.back().more());
      // version, request id, domain, address, identity, mechanism, credentials...
      std::string status = "400", text = "denied", user;
      if (frames.size() >= 7 && frames[5].to_string() == "CURVE" && frames[6].size() == 32) {
        char z85[41];
        zmq_z85_encode(z85, static_cast<const uint8_t*>(frames[6].data()), 32);
        user = z85;
        if (allowed_.count(user)) {
          status = "200";
          text = "OK";
          ++accepted_;
        } else {
          ++rejected_;
          spdlog::warn("rejected a CURVE client with an unknown key={} address={}", user,
                       frames[3].to_string());
        }
      } else {
        ++rejected_;
        spdlog::warn("rejected a client without CURVE credentials");
      }
      const std::string version = frames.empty() ? "1.0" : frames[0].to_string();
      const std::string request_id = frames.size() > 1 ? frames[1].to_string() : "";
      socket_.send(zmq::buffer(version), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(request_id), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(status), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(text), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(user), zmq::send_flags::sndmore);
      socket_.send(zmq::str_buffer(""), zmq::send_flags::none);
    } catch (const zmq::error_t& e) {
      if (e.num() == ETERM) return;
      spdlog::warn("ZAP handler error: {}", e.what());
    }
  }
}

}  // namespace zcrawl

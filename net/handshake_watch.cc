#include "net/handshake_watch.h"

#include <atomic>
#include <cstring>

namespace zcrawl {
namespace {

constexpr int kEvents = ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;

std::string NextEndpoint() {
  static std::atomic<uint64_t> next{0};
  return "inproc://zcrawl-handshake-watch-" + std::to_string(next.fetch_add(1));
}

}  // namespace

void HandshakeWatch::Start(zmq::context_t& context, zmq::socket_t& socket) {
  Stop();
  succeeded_ = false;
  refused_ = zap_status_ = 0;
  const std::string endpoint = NextEndpoint();
  if (zmq_socket_monitor(socket.handle(), endpoint.c_str(), kEvents) != 0) return;  // watched without events
  monitor_ = zmq::socket_t(context, zmq::socket_type::pair);
  monitor_.set(zmq::sockopt::linger, 0);
  monitor_.connect(endpoint);
  watched_ = &socket;
}

void HandshakeWatch::Stop() {
  if (watched_ == nullptr) return;
  if (watched_->handle() != nullptr) zmq_socket_monitor(watched_->handle(), nullptr, 0);
  monitor_.close();
  watched_ = nullptr;
}

void HandshakeWatch::Poll() {
  if (watched_ == nullptr) return;
  while (true) {
    zmq::message_t event;
    zmq::message_t address;
    if (!monitor_.recv(event, zmq::recv_flags::dontwait)) return;
    if (event.more()) (void)monitor_.recv(address, zmq::recv_flags::dontwait);
    if (event.size() < 6) continue;  // a monitor event is a uint16 id and a uint32 value
    uint16_t id = 0;
    uint32_t value = 0;
    std::memcpy(&id, event.data(), sizeof id);
    std::memcpy(&value, static_cast<const char*>(event.data()) + 2, sizeof value);
    if (id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
      succeeded_ = true;
    } else if (id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
      ++refused_;
      zap_status_ = value;
    }
  }
}

std::string HandshakeWatch::Diagnosis(const std::string& name, const std::string& endpoint) const {
  if (succeeded_) return "";
  if (refused_ > 0) {
    return "the " + name + " at " + endpoint + " refused our CURVE key (" + std::to_string(refused_) +
           " handshakes, status " + std::to_string(zap_status_) +
           "): add our public key (the 'public' line of --curve-key's file) to its --curve-allow and restart it";
  }
  return "";
}

}  // namespace zcrawl

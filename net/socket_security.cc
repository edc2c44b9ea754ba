#include "net/socket_security.h"

namespace zcrawl {

Status SecureServerSocket(zmq::context_t& context, zmq::socket_t& socket, const std::string& endpoint,
                          const SecurityOptions& options, std::unique_ptr<ZapAuthenticator>* zap) {
  if (options.curve_key.empty()) {
    if (!IsLocalOnlyEndpoint(endpoint) && !options.insecure) {
      return PermissionDeniedError("refusing to bind " + endpoint +
                                   " without encryption: pass --curve-key and --curve-allow, "
                                   "or --insecure on a trusted network");
    }
    return Status::Ok();
  }
  if (options.curve_allow.empty()) {
    return InvalidArgumentError("--curve-key needs --curve-allow (the clients' public keys)");
  }
  auto pair = LoadCurveKeyPair(options.curve_key);
  if (!pair.ok()) return pair.status();
  auto allowed = LoadCurveAllowList(options.curve_allow);
  if (!allowed.ok()) return allowed.status();
  if (!*zap) {
    auto started = ZapAuthenticator::Start(context, std::move(*allowed));
    if (!started.ok()) return started.status();
    *zap = std::move(*started);
  }
  return MakeCurveServer(socket, *pair);
}

Status SecureClientSocket(zmq::socket_t& socket, const SecurityOptions& options,
                          const std::string& server_key_file) {
  if (server_key_file.empty()) return Status::Ok();
  if (options.curve_key.empty()) {
    return InvalidArgumentError("a server key was given but no --curve-key for this process");
  }
  auto pair = LoadCurveKeyPair(options.curve_key);
  if (!pair.ok()) return pair.status();
  auto server = LoadCurvePublicKey(server_key_file);
  if (!server.ok()) return server.status();
  return MakeCurveClient(socket, *pair, *server);
}

}  // namespace zcrawl

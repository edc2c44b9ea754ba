// Applying SecurityOptions to sockets: the server side (key pair, ZAP
// allow-list, refusing insecure non-loopback binds) and the client side.
// Call from the thread that owns the socket, before bind/connect.
#pragma once

#include <memory>
#include <string>
#include <zmq.hpp>

#include "common/status.h"
#include "net/curve_keys.h"
#include "net/security_options.h"
#include "net/zap_authenticator.h"

namespace zcrawl {

// Prepares `socket` to bind at `endpoint`. With a curve key it becomes a
// CURVE server and `zap` is started (once per context) with the allow-list.
Status SecureServerSocket(zmq::context_t& context, zmq::socket_t& socket, const std::string& endpoint,
                          const SecurityOptions& options, std::unique_ptr<ZapAuthenticator>* zap);

// Prepares `socket` to connect to a server whose public key file is
// `server_key_file` ("" = plain connection).
Status SecureClientSocket(zmq::socket_t& socket, const SecurityOptions& options,
                          const std::string& server_key_file);

}  // namespace zcrawl

// CURVE keys for zcrawl's sockets: loading key files and configuring a
// socket as CURVE server or client. Keys are Z85 text (40 characters).
//
// Files, as written by `./run keys NAME`:
//   NAME.key  "public = <z85>\nsecret = <z85>\n"   (keep private, mode 0600)
//   NAME.pub  "<z85>\n"                           (give to peers)
// An allow-list is a file of public keys (one per line; a line starting
// with '#' is a comment, and so is what follows a key after a blank: '#' is
// also a Z85 digit) or a folder of *.pub files. Pure functions; thread-safe.
#pragma once

#include <set>
#include <string>
#include <zmq.hpp>

#include "common/status.h"

namespace zcrawl {

struct CurveKeyPair {
  std::string public_key;  // Z85
  std::string secret_key;  // Z85
};

Result<CurveKeyPair> GenerateCurveKeyPair();
// Writes DIR/NAME.key (0600) and DIR/NAME.pub; refuses to overwrite.
Status WriteCurveKeyFiles(const std::string& dir, const std::string& name, const CurveKeyPair& pair);

Result<CurveKeyPair> LoadCurveKeyPair(const std::string& path);
Result<std::string> LoadCurvePublicKey(const std::string& path);
Result<std::set<std::string>> LoadCurveAllowList(const std::string& path);

Status MakeCurveServer(zmq::socket_t& socket, const CurveKeyPair& own);
Status MakeCurveClient(zmq::socket_t& socket, const CurveKeyPair& own, const std::string& server_public);

// True when every endpoint of the comma-separated list (zmq_io.h Bind) is
// one only this machine can reach (loopback tcp, ipc, inproc): binding
// anywhere else without CURVE needs --insecure.
bool IsLocalOnlyEndpoint(const std::string& endpoints);

}  // namespace zcrawl

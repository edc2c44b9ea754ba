// SecurityOptions: CURVE encryption and authentication settings shared by
// every process. Binding beyond loopback without CURVE is refused unless
// `insecure` is set. Keys are made with `./run keys NAME`.
#pragma once

#include <string>

#include "common/settings_declarer.h"

namespace zcrawl {

struct SecurityOptions {
  // This process's key pair (NAME.key). Servers (frontier, writer) use it
  // as their server key; clients (fetchers, the writer towards the
  // frontier) as their client key.
  std::string curve_key;
  // Servers: the public keys allowed to connect (a file of keys or a folder
  // of *.pub files). Required with curve_key on a server.
  std::string curve_allow;
  // Clients: the public keys of the servers they connect to.
  std::string frontier_key;
  std::string writer_key;
  // Allow binding a non-loopback address without CURVE.
  bool insecure = false;
};

// Adds --curve-key and the flags that apply to this process's role.
inline void AddSecurityFlags(SettingsDeclarer& d, SecurityOptions& o, bool server, bool frontier_client,
                             bool writer_client) {
  d.Option("--curve-key", o.curve_key, "This process's CURVE key pair file (./run keys)");
  if (server) {
    d.Option("--curve-allow", o.curve_allow, "Allowed client public keys (file or folder of .pub)");
    d.Flag("--insecure", o.insecure, "Allow binding beyond loopback without CURVE");
  }
  if (frontier_client) d.Option("--frontier-key", o.frontier_key, "The frontier's public key file");
  if (writer_client) d.Option("--writer-key", o.writer_key, "The writer's public key file");
}

}  // namespace zcrawl

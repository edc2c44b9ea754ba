// zcrawl-keys: `./run keys NAME [--dir DIR]` makes a CURVE key pair:
// DIR/NAME.key (secret, mode 0600) and DIR/NAME.pub (for the peers'
// allow-lists). See docs/DEPLOY.md.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "common/cli_config.h"
#include "net/curve_keys.h"

int main(int argc, char** argv) {
  CLI::App app{"zcrawl keys: create a CURVE key pair for a frontier, writer or fetcher"};
  std::string name;
  std::string dir = "keys";
  app.add_option("name", name, "Key name, e.g. frontier, writer, fetcher-host1")->required();
  app.add_option("--dir", dir, "Folder for the key files")->capture_default_str();
  if (auto exit = zcrawl::ParseSettings(app, "keys", [&] { app.parse(argc, argv); })) return *exit;
  auto pair = zcrawl::GenerateCurveKeyPair();
  if (!pair.ok()) {
    fprintf(stderr, "keys: %s\n", pair.status().message().c_str());
    return 1;
  }
  if (zcrawl::Status s = zcrawl::WriteCurveKeyFiles(dir, name, *pair); !s.ok()) {
    fprintf(stderr, "keys: %s\n", s.message().c_str());
    return 1;
  }
  printf("%s/%s.key (keep secret)\n%s/%s.pub  %s\n", dir.c_str(), name.c_str(), dir.c_str(),
         name.c_str(), pair->public_key.c_str());
  return 0;
}

// zcrawl-control: `./run control [OUT] VERB [--note TEXT]` steers a running
// crawl: the crawl writing to OUT (default crawl-out; found as `./run
// status` finds it), or the frontier at --frontier. Verbs (zcrawl.proto's
// Control, docs/PROTOCOL.md 3.4):
//   pause    no new leases; what is in flight finishes and is stored; kept
//            across a restart
//   resume   leases again
// Prints what changed ("paused: ...", "already paused"); exit 0 when the
// frontier applied it, 1 when no crawl runs there or it refused, 2 for a
// bad verb. Single-threaded.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/cli_config.h"
#include "common/settings_declarer.h"
#include "tools/frontier_client.h"

namespace zcrawl {
namespace {

int Main(int argc, char** argv) {
  std::vector<std::string> words;
  std::string note;
  FrontierAddress address;
  CLI::App app{"zcrawl control: steer a running crawl (pause, resume)"};
  app.add_option("words", words, "[OUT] VERB: the crawl's output folder (default crawl-out), then pause or resume")
      ->required()
      ->expected(1, 2);
  app.add_option("--note", note, "Why (kept in the crawl's control.log)");
  app.add_option("--frontier", address.endpoint, "Frontier endpoint (default: the crawl writing to OUT)");
  app.add_option("--timeout-ms", address.timeout_ms, "Give up (exit 1) without a reply after this")
      ->capture_default_str()->check(CLI::Range(1, 3600000));
  SettingsDeclarer declarer(app);
  AddSecurityFlags(declarer, address.security, /*server=*/false, /*frontier_client=*/true, false);
  if (auto exit = ParseSettings(app, "control", [&] { app.parse(argc, argv); })) return *exit;

  const std::string out = words.size() == 2 ? words[0] : "crawl-out";
  const std::string& verb = words.back();
  v1::StatusRequest request;
  if (verb == "pause") {
    request.mutable_control()->mutable_pause();
  } else if (verb == "resume") {
    request.mutable_control()->mutable_resume();
  } else {
    std::cerr << "zcrawl-control: unknown verb \"" << verb << "\" (pause, resume)\n";
    return 2;
  }
  request.mutable_control()->set_note(note);
  if (Status s = ResolveFrontier(out, words.size() == 2, &address.endpoint); !s.ok()) {
    std::cerr << "zcrawl-control: " << s.message() << "\n";
    return 1;
  }
  auto reply = AskFrontier(address, request);
  if (!reply.ok()) {
    std::cerr << "zcrawl-control: " << reply.status().message() << "\n";
    return 1;
  }
  if (reply->control_result().empty()) {
    std::cerr << "zcrawl-control: the frontier at " << address.endpoint
              << " answered without applying it (an older build?)\n";
    return 1;
  }
  std::cout << verb << ": " << reply->control_result() << "\n";
  const bool refused = reply->control_result().starts_with("refused");
  return refused ? 1 : 0;
}

}  // namespace
}  // namespace zcrawl

int main(int argc, char** argv) {
  try {
    return zcrawl::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcrawl-control: fatal: %s\n", e.what());
    return 1;
  }
}

// Fuzz target of config files (common/cli_config.h): any bytes as the TOML
// file a frontier is started with (`--config FILE`), through CLI11's
// parser and every frontier setting's checks, as zcrawl-frontier reads it.
// A bad file must be refused through ParseSettings (a one-line error and
// an exit code), never a crash or another exception. Found here: CLI11
// lets std::out_of_range escape from a flag's numeric value
// ("no-robots = 0000...5000..."), which ParseSettings now refuses.
#include <sys/mman.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "common/cli_config.h"
#include "common/settings_declarer.h"
#include "frontier/frontier_options.h"
#include "frontier/frontier_settings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The file lives in memory; CLI11 opens it by name.
  static const int fd = memfd_create("zcrawl-fuzz-config", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) abort();
  zcrawl::frontier::FrontierOptions options;
  CLI::App app{"fuzz"};
  zcrawl::SettingsDeclarer declarer(app);
  zcrawl::frontier::DeclareFrontierSettings(declarer, options);
  zcrawl::ConfigRequests requests;
  zcrawl::AddConfigFlags(app, &requests);
  std::vector<std::string> args = {path, "--config"};  // CLI11 takes them last first
  std::ostringstream refusal;  // one line per bad input: kept out of the fuzzer's log
  if (!zcrawl::ParseSettings(app, "fuzz", [&] { app.parse(args); }, refusal)) (void)zcrawl::ConfigText(app);
  return 0;
}

// Process-wide logging setup: one named spdlog logger per process, used as
// the default logger so components write `spdlog::info(...)`.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl {

struct LoggingOptions {
  std::string level = "info";  // trace, debug, info, warn, error, off
  bool json = false;           // one JSON object per line instead of text
};

// Installs a stderr logger named `process_name` as the default logger.
// Fails on an unknown level name.
Status SetupLogging(std::string_view process_name, const LoggingOptions& options);

}  // namespace zcrawl

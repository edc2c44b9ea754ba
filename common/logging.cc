#include "common/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace zcrawl {

Status SetupLogging(std::string_view process_name, const LoggingOptions& options) {
  const auto level = spdlog::level::from_str(options.level);
  if (level == spdlog::level::off && options.level != "off") {
    return InvalidArgumentError("unknown log level '" + options.level +
                                "' (use trace, debug, info, warn, error, off)");
  }
  auto logger = spdlog::stderr_logger_mt(std::string(process_name));
  logger->set_level(level);
  if (options.json) {
    logger->set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%eZ","process":"%n","pid":%P,"level":"%l","msg":"%v"})",
        spdlog::pattern_time_type::utc);
  } else {
    logger->set_pattern("%H:%M:%S.%e %n[%P] %^%l%$ %v");
  }
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
  return Status::Ok();
}

}  // namespace zcrawl

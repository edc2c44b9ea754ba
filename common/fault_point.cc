#include "common/fault_point.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

namespace zcrawl {
namespace {

struct FaultConfig {
  std::string point;
  std::string marker;
  long after = 1;
};

const FaultConfig& Config() {
  static const FaultConfig config = [] {
    FaultConfig c;
    const char* point = std::getenv("ZCRAWL_FAULT_POINT");
    const char* marker = std::getenv("ZCRAWL_FAULT_MARKER");
    const char* after = std::getenv("ZCRAWL_FAULT_AFTER");
    // Without a marker the point would fire again in every restart: unarmed.
    if (point == nullptr || marker == nullptr || *marker == '\0') return c;
    c.point = point;
    c.marker = marker;
    if (after != nullptr) c.after = std::max(1L, std::strtol(after, nullptr, 10));
    return c;
  }();
  return config;
}

std::atomic<long> hits{0};

}  // namespace

const std::string& ArmedFaultPoint() { return Config().point; }

void HitFaultPoint(std::string_view name, const std::string& note) {
  const FaultConfig& config = Config();
  if (config.point.empty() || name != config.point) return;
  if (hits.fetch_add(1) + 1 != config.after) return;
  // O_EXCL: of several processes (or a restart) only the first fires.
  const int fd = ::open(config.marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string text = note + "\n";
  if (::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size())) ::fsync(fd);
  ::close(fd);
  ::raise(SIGKILL);
}

}  // namespace zcrawl

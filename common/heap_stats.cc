#include "common/heap_stats.h"

#include <dlfcn.h>

#include <cstddef>

namespace zcrawl {
namespace {

using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);

Mallctl FindMallctl() {
  static const Mallctl mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  return mallctl;
}

bool Read(Mallctl mallctl, const char* name, uint64_t* value) {
  size_t bytes = 0;
  size_t length = sizeof bytes;
  if (mallctl(name, &bytes, &length, nullptr, 0) != 0) return false;
  *value = bytes;
  return true;
}

}  // namespace

std::optional<HeapStats> ReadHeapStats() {
  const Mallctl mallctl = FindMallctl();
  if (mallctl == nullptr) return std::nullopt;
  // The statistics are a snapshot refreshed by writing the epoch.
  uint64_t epoch = 1;
  size_t length = sizeof epoch;
  if (mallctl("epoch", &epoch, &length, &epoch, sizeof epoch) != 0) return std::nullopt;
  HeapStats stats;
  if (!Read(mallctl, "stats.allocated", &stats.allocated_bytes) ||
      !Read(mallctl, "stats.resident", &stats.resident_bytes)) {
    return std::nullopt;
  }
  return stats;
}

}  // namespace zcrawl

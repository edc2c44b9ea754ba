// --min-free-mb, declared once for the frontier (its state folder) and the
// writer (its output); ./run crawl gives both the same value
// (launcher/component_settings.cc).
#pragma once

#include <cstdint>

#include "common/settings_declarer.h"

namespace zcrawl {

inline void AddMinFreeSpaceFlag(SettingsDeclarer& d, uint64_t& min_free_mb) {
  d.Option("--min-free-mb", min_free_mb,
           "Wait for space (store nothing new, hand out no work) while the filesystem of the "
           "frontier's state or the writer's output has less free, in MB (0: only at ENOSPC)")
      ->capture_default_str();
}

}  // namespace zcrawl

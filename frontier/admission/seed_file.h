// AddSeedFile: the URLs of `--seeds FILE` joined to the frontier's seeds, the
// bad lines logged and skipped (common/seed_list.h). One step of starting a
// frontier, shared by zcrawl-frontier and zcrawl-local.
#pragma once

#include "common/status.h"
#include "frontier/frontier_options.h"

namespace zcrawl::frontier {

// Does nothing without seeds_file; fails only when the file cannot be read.
Status AddSeedFile(FrontierOptions& options);

}  // namespace zcrawl::frontier

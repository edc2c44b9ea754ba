#include "frontier/admission/seed_file.h"

#include <spdlog/spdlog.h>

#include "common/seed_list.h"

namespace zcrawl::frontier {

Status AddSeedFile(FrontierOptions& options) {
  if (options.seeds_file.empty()) return Status::Ok();
  auto list = ReadSeedList(options.seeds_file);
  if (!list.ok()) return list.status();
  for (const auto& error : list->errors) spdlog::warn("seed skipped: {}", error);
  options.seeds_skipped += list->errors.size();
  options.seeds.insert(options.seeds.end(), list->urls.begin(), list->urls.end());
  return Status::Ok();
}

}  // namespace zcrawl::frontier

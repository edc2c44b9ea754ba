// The output folder of `./run crawl`, readied before any process starts:
// created if missing; with --fresh, what an earlier crawl left in it is
// deleted, but only in a folder that holds the crawl state marker
// (OUT/.zcrawl), so --fresh never empties a folder zcrawl did not fill.
//
// A deletion that fails is an error (nothing may start on a half-deleted
// crawl): the state marker is deleted last, so a failed --fresh leaves a
// folder that --fresh can clear again once the cause is fixed.
//
// Functions without shared state; thread-safe.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <system_error>

#include "common/status.h"

namespace zcrawl::launcher {

// The crawl state folder inside an output folder.
std::string StateDir(const std::string& out_dir);

enum class OutputFolderState {
  kNew,       // nothing to resume: the crawl starts afresh
  kResuming,  // an earlier crawl's saved state is there and is resumed
  kCleared,   // --fresh deleted an earlier crawl
};

// Deletes one path and everything under it (std::filesystem::remove_all);
// tests inject failures.
using PathRemover = std::function<void(const std::filesystem::path&, std::error_code&)>;
void RemovePathTree(const std::filesystem::path& path, std::error_code& ec);

// Creates `out_dir` and, when `fresh`, deletes an earlier crawl in it. An
// error names the path that could not be created or deleted and why
// (PermissionDenied for EACCES, EPERM and EROFS; Internal otherwise).
Result<OutputFolderState> PrepareOutputFolder(const std::string& out_dir, bool fresh,
                                              const PathRemover& remove = RemovePathTree);

}  // namespace zcrawl::launcher

#include "launcher/output_folder.h"

#include <cerrno>
#include <vector>

namespace zcrawl::launcher {
namespace {

Status FolderError(const std::string& what, const std::filesystem::path& path, const std::error_code& ec) {
  std::string message = what + " " + path.string() + ": " + ec.message();
  const int e = ec.value();
  if (ec.category() == std::generic_category() || ec.category() == std::system_category()) {
    if (e == EACCES || e == EPERM || e == EROFS) return PermissionDeniedError(std::move(message));
  }
  return InternalError(std::move(message));
}

}  // namespace

std::string StateDir(const std::string& out_dir) { return out_dir + "/.zcrawl"; }

void RemovePathTree(const std::filesystem::path& path, std::error_code& ec) {
  std::filesystem::remove_all(path, ec);
}

Result<OutputFolderState> PrepareOutputFolder(const std::string& out_dir, bool fresh, const PathRemover& remove) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return FolderError("cannot create output folder", out_dir, ec);
  const std::filesystem::path state_dir = StateDir(out_dir);
  if (!fresh || !std::filesystem::exists(state_dir, ec)) {
    if (std::filesystem::exists(state_dir / "frontier.db" / "CURRENT", ec)) return OutputFolderState::kResuming;
    return OutputFolderState::kNew;
  }
  // Listed first, deleted after: no directory is changed while it is read.
  std::vector<std::filesystem::path> entries;
  for (std::filesystem::directory_iterator it(out_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() != state_dir.filename()) entries.push_back(it->path());
  }
  if (ec) return FolderError("cannot list", out_dir, ec);
  entries.push_back(state_dir);  // last: while it is there, --fresh can try again
  for (const std::filesystem::path& entry : entries) {
    remove(entry, ec);
    if (ec) return FolderError("cannot delete", entry, ec);
  }
  return OutputFolderState::kCleared;
}

}  // namespace zcrawl::launcher

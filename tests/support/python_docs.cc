#include "tests/support/python_docs.h"

#include <fstream>
#include <sstream>
#include <system_error>

namespace zcrawl::corpus {

std::set<std::filesystem::path> PythonDocumentationPages() {
  namespace fs = std::filesystem;
  std::set<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/share/doc", ec)) {
    if (!entry.path().filename().string().starts_with("python3")) continue;
    const fs::path html_dir = entry.path() / "html";
    if (!fs::is_directory(html_dir, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(html_dir, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file(ec) && it->path().extension() == ".html") files.insert(fs::canonical(it->path(), ec));
    }
  }
  return files;
}

std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace zcrawl::corpus

#include "tests/support/documentation_corpus.h"

#include <system_error>

namespace zcrawl::corpus {
namespace {

namespace fs = std::filesystem;

// Every .html file under `html_dir`, by canonical path (the python3* folders
// are symbolic links to one another).
void AddHtmlFiles(const fs::path& html_dir, std::set<fs::path>* files) {
  std::error_code ec;
  if (!fs::is_directory(html_dir, ec)) return;
  for (auto it = fs::recursive_directory_iterator(html_dir, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".html") files->insert(fs::canonical(it->path(), ec));
  }
}

}  // namespace

std::set<fs::path> PythonDocumentationPages() {
  std::set<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/share/doc", ec)) {
    if (entry.path().filename().string().starts_with("python3")) AddHtmlFiles(entry.path() / "html", &files);
  }
  return files;
}

std::set<fs::path> PostgresDocumentationPages() {
  std::set<fs::path> files;
  AddHtmlFiles("/usr/share/doc/postgresql-doc-15/html", &files);
  return files;
}

}  // namespace zcrawl::corpus

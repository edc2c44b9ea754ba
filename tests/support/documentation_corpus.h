// Real documentation pages from Debian packages, the corpora of the parser
// differential tests: python3-doc (/usr/share/doc/python3*/html, 530 pages
// written by Sphinx) and postgresql-doc-15 (/usr/share/doc/postgresql-doc-15/
// html, ~1,170 pages written by DocBook's XSL). `./run test` installs both
// (TEST_PACKAGES in tools/debian_packages.sh); a set is empty when its
// package is not installed, and the tests using it then skip. Read a page
// with testing::ReadFile (test_process.h).
#pragma once

#include <filesystem>
#include <set>

namespace zcrawl::corpus {

std::set<std::filesystem::path> PythonDocumentationPages();
std::set<std::filesystem::path> PostgresDocumentationPages();

}  // namespace zcrawl::corpus

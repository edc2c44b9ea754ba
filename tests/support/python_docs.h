// The HTML pages of Debian's python3-doc package (/usr/share/doc/python3*/
// html), a corpus of real documentation pages for the parser differential
// tests; empty when the package is not installed (the tests then skip).
#pragma once

#include <filesystem>
#include <set>
#include <string>

namespace zcrawl::corpus {

std::set<std::filesystem::path> PythonDocumentationPages();

// The whole content of `path` ("" if it cannot be read).
std::string ReadWholeFile(const std::filesystem::path& path);

}  // namespace zcrawl::corpus

// zcrawl-pack: `./run pack [DIR] [FILE]` packs a WARC crawl's output folder
// into one WACZ file (default DIR/crawl.wacz) that ReplayWeb.page and pywb
// open: the WARC files, their merged CDXJ index and the page lists, each
// with its sha256 in datapackage.json (writer/wacz_pack.h). Run it after
// the crawl.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "common/cli_config.h"
#include "writer/wacz_pack.h"

int main(int argc, char** argv) {
  CLI::App app{"zcrawl pack: a WARC crawl as one WACZ file"};
  std::string dir = "crawl-out";
  std::string output;
  app.add_option("dir", dir, "The crawl's output folder")->capture_default_str();
  app.add_option("file", output, "The WACZ file to write (default DIR/crawl.wacz)");
  if (auto exit = zcrawl::ParseSettings(app, "pack", [&] { app.parse(argc, argv); })) return *exit;
  if (output.empty()) output = dir + "/crawl.wacz";
  zcrawl::writer::WaczCounts counts;
  if (zcrawl::Status s = zcrawl::writer::PackWacz(dir, output, &counts); !s.ok()) {
    fprintf(stderr, "pack: %s\n", s.message().c_str());
    return 1;
  }
  if (counts.warc_files == 0) fprintf(stderr, "pack: warning: %s holds no WARC file\n", dir.c_str());
  printf("pack: %s: %llu WARC file(s), %llu index lines, %llu seed page(s), %llu other pages, %llu bytes\n",
         output.c_str(), static_cast<unsigned long long>(counts.warc_files),
         static_cast<unsigned long long>(counts.index_lines), static_cast<unsigned long long>(counts.pages),
         static_cast<unsigned long long>(counts.extra_pages), static_cast<unsigned long long>(counts.bytes));
  return 0;
}

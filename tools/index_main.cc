// zcrawl-index: `./run index [DIR] [FILE]` writes the CDXJ index of a WARC
// crawl: first the per-file CDXJ of any finished WARC file in DIR that has
// none (a writer that was stopped before it wrote one), then all of them
// merged, sorted, into FILE (default DIR/index.cdxj), the one index pywb or
// a WACZ takes. writer/warc_file_cdxj.h says how. Run it after the crawl.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "common/cli_config.h"
#include "writer/warc_file_cdxj.h"

int main(int argc, char** argv) {
  CLI::App app{"zcrawl index: the CDXJ index of a crawl's WARC files"};
  std::string dir = "crawl-out";
  std::string output;
  app.add_option("dir", dir, "The crawl's output folder")->capture_default_str();
  app.add_option("file", output, "The merged index to write (default DIR/index.cdxj)");
  if (auto exit = zcrawl::ParseSettings(app, "index", [&] { app.parse(argc, argv); })) return *exit;
  if (output.empty()) output = dir + "/index.cdxj";
  zcrawl::writer::CrawlIndexCounts counts;
  if (zcrawl::Status s = zcrawl::writer::WriteCrawlIndex(dir, output, &counts); !s.ok()) {
    fprintf(stderr, "index: %s\n", s.message().c_str());
    return 1;
  }
  if (counts.files.files_written > 0) {
    printf("index: wrote the missing CDXJ of %llu WARC file(s)\n",
           static_cast<unsigned long long>(counts.files.files_written));
  }
  if (counts.files.files_without_cdxj_lines > 0) {
    fprintf(stderr, "index: %llu WARC file(s) were written before zcrawl kept CDXJ lines and are not indexed\n",
            static_cast<unsigned long long>(counts.files.files_without_cdxj_lines));
  }
  printf("index: %s: %llu lines from %llu CDXJ file(s)\n", output.c_str(),
         static_cast<unsigned long long>(counts.lines), static_cast<unsigned long long>(counts.inputs));
  return 0;
}

// PackWacz: a WARC crawl's output folder as one WACZ 1.2.0 file (Web Archive
// Collection Zipped, what ReplayWeb.page opens and archives share):
//   archive/*.warc.gz          the crawl's WARC files, stored (not
//                              compressed again: a reader seeks into them)
//   indexes/index.cdx          the merged CDXJ (warc_file_cdxj.h)
//   pages/pages.jsonl          the seeds' pages (depth 0)
//   pages/extraPages.jsonl     every other HTML page with a 2xx status
//   datapackage.json           profile "wacz", and each file's path, size
//                              and sha256
//   datapackage-digest.json    the sha256 of datapackage.json
// Page lines are {"id","url","ts","title"} after the {"format":
// "json-pages-1.0",...} header line; url is the record's target URI and ts
// its WARC-Date (RFC 3339), both from the CDXJ line, the title from the
// sidecar index (warc_index.h). datapackage.json's "home" is the first seed.
//
// Every entry is STORED (the spec requires it for the WARC files and allows
// it for the rest). The ZIP is written by libzip (ZIP64 past 4 GiB) to a
// temporary name and renamed, so a reader never sees half a WACZ. Run it
// after the crawl, when no writer writes to the folder.
//
// Thread-safety: a function of its arguments and the files named.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace zcrawl::writer {

struct WaczCounts {
  uint64_t warc_files = 0;
  uint64_t pages = 0;        // lines of pages.jsonl
  uint64_t extra_pages = 0;  // lines of extraPages.jsonl
  uint64_t index_lines = 0;
  uint64_t bytes = 0;        // size of the WACZ
};

// Packs the WARC files of `dir` into `output`. Also leaves the merged index
// at dir/index.cdxj (`./run index`).
Status PackWacz(const std::string& dir, const std::string& output, WaczCounts* counts);

}  // namespace zcrawl::writer

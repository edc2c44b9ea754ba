// PackWacz: a WARC crawl's output folder as one WACZ file (Web Archive
// Collection Zipped, what ReplayWeb.page opens and archives share), the
// layout of WACZ 1.2.0 declared the way replay tools read it:
//   archive/*.warc.gz          the crawl's WARC files, stored (not
//                              compressed again: a reader seeks into them)
//   indexes/index.cdx          the merged CDXJ (warc_file_cdxj.h)
//   pages/pages.jsonl          the seeds' pages (depth 0)
//   pages/extraPages.jsonl     every other HTML page with a 2xx status
//   datapackage.json           profile "data-package", wacz_version
//                              "1.1.1", and each file's path, size and
//                              sha256
//   datapackage-digest.json    the sha256 of datapackage.json
// Page lines are {"id","url","ts","title"} after the {"format":
// "json-pages-1.0",...} header line; url is the record's target URI and ts
// its WARC-Date (RFC 3339), both from the CDXJ line, the title from the
// sidecar index (warc_index.h). datapackage.json's "home" is the first seed.
//
// The profile: the 1.2.0 draft's "wacz" makes ReplayWeb.page 2.5.3 (its
// wabac.js) refuse the file ("Unknown package profile: wacz"); it reads
// "data-package", which py-wacz and Browsertrix's packer write with
// wacz_version 1.1.1, and whose layout is the one above
// (tests/replay/replay_check.sh replays it in headless Chromium).
//
// Every entry is STORED (the spec requires it for the WARC files and allows
// it for the rest). The ZIP is written by libzip (ZIP64 past 4 GiB) to a
// temporary name and renamed, so a reader never sees half a WACZ. Run it
// after the crawl, when no writer writes to the folder: it first cuts the
// WARC files back to what their sidecar index acknowledges, as a writer's
// Open would, so the package holds every page once.
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
  // WARC files cut back to their index first (a writer killed and never
  // restarted left pages no index line acknowledges; warc_recovery.h).
  uint64_t unacknowledged_cut = 0;
};

// Packs the WARC files of `dir` into `output`. Also leaves the merged index
// at dir/index.cdxj (`./run index`).
Status PackWacz(const std::string& dir, const std::string& output, WaczCounts* counts);

}  // namespace zcrawl::writer

// FilesWindowJournal: the page files a FilesSink created since its last
// durable flush, so that a writer killed mid-window leaves none behind.
//
// Why: the files sink writes a page's file at once but its index line only
// at the window's flush. A writer killed in between leaves page files no
// index line names; their pages were never acknowledged and come again,
// and finding the natural name taken, the second copy goes to
// out_dir/_/HEX: the page would be in the folder twice. The journal names
// those files so that the next Open removes them (a write-ahead intent log
// for one window).
//
// out_dir/.zcrawl/files-window.journal: one line per page file, relative
// to out_dir, each written to the kernel BEFORE the file is created. Open
// removes a named file only when no line of index.jsonl names it: a name
// whose create failed because an earlier, acknowledged page holds it is
// named by that page's line and stays. It reads the index once, keeping
// only the window's names in memory.
// Its lines are not fsynced: it guards against a killed process (whose
// writes the kernel keeps), not against a power cut, after which the page
// files it would name are not durable either.
//
// Thread-safety: none; owned by the sink thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl::writer {

// Beside the frontier's state in a local crawl, where no reader of the
// pages looks: out_dir/.zcrawl/files-window.journal.
inline constexpr std::string_view kFilesWindowJournalDir = ".zcrawl";
inline constexpr std::string_view kFilesWindowJournalName = "files-window.journal";

class FilesWindowJournal {
 public:
  FilesWindowJournal() = default;
  ~FilesWindowJournal();  // closes
  FilesWindowJournal(const FilesWindowJournal&) = delete;
  FilesWindowJournal& operator=(const FilesWindowJournal&) = delete;

  // Removes the files an earlier run's window left behind: those the
  // journal at `path` names that no line of `index_path` names (their
  // pages were not acknowledged), then empties the journal and keeps it
  // open. *removed counts the files removed.
  Status Open(const std::string& out_dir, const std::string& path, const std::string& index_path,
              uint64_t* removed);
  // Records that the page file `relative` is about to be created.
  Status Record(std::string_view relative);
  // The window is over (durable, or its files removed): empties the journal.
  Status Clear();
  void Close();

 private:
  std::string path_;
  int fd_ = -1;
  bool window_open_ = false;  // the journal names some file
};

}  // namespace zcrawl::writer

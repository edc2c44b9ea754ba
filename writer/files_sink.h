// FilesSink: one file per page under out_dir, laid out like the site
// (out_dir/HOST[_PORT]/path/to/page), plus out_dir/index.jsonl with one line
// per page: url, final_url, status, content_type, bytes, depth, fetched_at,
// file (relative to out_dir), etag and last_modified when the response had
// them (a recrawl sends them back: page_validators.h). A recrawl's 304 gets
// no file: its line has file "", unchanged true and previous_fetched_at_ms.
//
// Safety: every path segment is sanitised ("", ".", ".." and characters
// unsafe in file names are replaced), so no URL can escape out_dir. Files
// are created with O_EXCL, so no URL ever overwrites another's file; when
// the natural name is taken or collides with a directory, the page goes to
// out_dir/_/HEX.ext named by the URL's digest (the index says where).
//
// A failed write or flush leaves nothing behind: the page file being
// written is removed, and a failed Flush removes every file of its window
// and cuts index.jsonl back to its last durable size (the window gets no
// credit and is given again, sink_group.h). A writer killed in a window
// leaves nothing behind either: each page file is named in a journal before
// it is created, and the next Open removes the ones no index line names
// (files_window_journal.h), so every page is in the folder once. Errors keep
// their errno's code
// (file_io.h: ENOSPC is ResourceExhausted, what makes the writer wait for
// space).
//
// Calls come from the writer's sink thread only (see sink.h).
#pragma once

#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>
#include <sys/types.h>

#include "writer/durable_file.h"
#include "writer/files_window_journal.h"
#include "writer/sink.h"
#include "writer/sink_options.h"

namespace zcrawl::writer {

class FilesSink final : public Sink {
 public:
  explicit FilesSink(const SinkOptions& options);
  ~FilesSink() override;

  Status Open() override;
  Status Flush() override;
  Status Close() override;
  std::string_view name() const override { return "files"; }
  // The URLs in index.jsonl.
  Status ForEachStoredKey(const std::function<void(const std::string&)>& visit) override;

 private:
  Status Append(const v1::Page& page, PagePayload&& payload) override;
  // Creates the file for `page` holding `body` and returns its path
  // relative to out_dir.
  Result<std::string> StoreBody(const v1::Page& page, const std::string& body);
  // mkdir -p of `dir` under out_dir, remembered: pages of one folder cost
  // no mkdir/stat calls after the first (they were 6 syscalls per page).
  bool EnsureDir(const std::string& dir);

  static constexpr size_t kMaxKnownDirs = 100000;

  SinkOptions options_;
  DurableFile index_;  // index.jsonl; durable at each good Flush
  std::string index_buffer_;  // index lines not yet written
  std::vector<std::string> window_files_;  // page files written since then
  // Removes the window's files and cuts the index back (a failed Flush).
  void RollBackWindow();
  std::unordered_set<std::string> known_dirs_;  // relative folders that exist
  FilesWindowJournal journal_;  // the window's page files, for a restart's Open
  uint64_t unacknowledged_removed_ = 0;

 public:
  // Page files an earlier run left unacknowledged that Open removed.
  uint64_t unacknowledged_removed() const { return unacknowledged_removed_; }
};

// Relative path (under out_dir) where FilesSink would like to put `url`.
// Exposed for tests.
std::string FilesSinkPathFor(std::string_view url, std::string_view content_type);

}  // namespace zcrawl::writer

// DurableFile: an append-only file that knows its durable prefix, the one
// storage layer under every sink of the writer. A sink is the format (what
// bytes a page becomes); this is the destination's durability, written once:
//   - Open cuts a torn tail a crash left (with Tail::kCutTornLine, a last
//     line without its '\n');
//   - Append hands bytes to the kernel; Sync fsyncs them and moves the
//     durable prefix (MarkDurable, when someone else synced: syncfs, or a
//     flush thread that fsynced fd());
//   - after a failed Append or Sync, CutToDurable cuts the file back to the
//     durable prefix, so no torn record stays behind and a failed window's
//     bytes are gone before its pages come again.
// What a crash leaves past the durable prefix is the sink's to recover on
// its next Open (warc_recovery.h, files_window_journal.h), since only it
// knows which of those bytes were acknowledged.
//
// Thread-safety: owned by one thread (the writer's sink thread). fd() may
// be fsynced from another thread while the owner appends; the owner then
// calls MarkDurable with the size that sync covered.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl::writer {

class DurableFile {
 public:
  enum class Tail { kKeep, kCutTornLine };

  DurableFile() = default;
  ~DurableFile();  // Close()
  DurableFile(const DurableFile&) = delete;
  DurableFile& operator=(const DurableFile&) = delete;

  // Opens `path` for appending, creating it when missing (then created()
  // is true: the caller makes the folder entry durable). Its size on disk
  // counts as durable. With kCutTornLine a last line without '\n' is cut
  // (and the cut fsynced) first.
  Status Open(const std::string& path, Tail tail);
  // Creates `path`, which must not exist: false when it does (nothing
  // opened), so the caller picks another name.
  Result<bool> Create(const std::string& path);
  // Writes all of `data` (not durable yet).
  Status Append(std::string_view data);
  // fsyncs; everything appended so far becomes the durable prefix.
  Status Sync();
  // `size` bytes are durable (synced by someone else).
  void MarkDurable(uint64_t size) { durable_size_ = size; }
  // Cuts the file back to its durable prefix and fsyncs the cut. The file
  // stays open when that worked; when it did not, it is closed (and the
  // error returned): a later Open starts from what is on disk.
  Status CutToDurable();
  // Removes the file (a file none of whose bytes were ever acknowledged).
  void Remove();
  void Close();

  bool is_open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  uint64_t durable_size() const { return durable_size_; }
  bool created() const { return created_; }

 private:
  // fstat's size of the open file, or the error (the file is closed).
  Status ReadSize();

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;          // appended (written to the kernel)
  uint64_t durable_size_ = 0;  // fsynced
  bool created_ = false;
};

// Cuts the file at `path` back to its last complete line ('\n'-terminated),
// fsyncing the cut: a crash mid-append leaves a torn line that would glue
// onto the next one. A missing file is fine.
Status CutTornLine(const std::string& path);

}  // namespace zcrawl::writer

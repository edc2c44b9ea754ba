// File I/O helpers the file-writing sinks share: turning an errno into a
// Status whose code says what the caller should do next, writing a whole
// buffer to a file descriptor, and making a folder's entries durable.
//
// Each message reads "<what> <path>: <strerror text>", e.g.
// "write out/pages.jsonl: No space left on device". The functions hold no
// state and own no descriptors (the caller's fd stays open); safe from any
// thread as long as no two threads write to one fd at the same time.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl::writer {

// "<what> <path>: <strerror(err)>".
std::string ErrnoMessage(std::string_view what, const std::string& path, int err);

// ErrnoMessage with the code for `err`: PermissionDenied for EACCES, EPERM
// and EROFS; ResourceExhausted (back off) for ENOSPC, EDQUOT, EMFILE and
// ENFILE; Unavailable (retry soon) for anything else.
Status ErrnoStatus(std::string_view what, const std::string& path, int err);

// Writes all of `data` to `fd`, continuing after short writes and EINTR.
// On failure returns ErrnoStatus("write", path, errno); some bytes may have
// reached the file by then. `path` only names the file in that message.
Status WriteAll(int fd, std::string_view data, const std::string& path);

// fsyncs the folder `dir`, so entries created or renamed in it survive a
// crash. Errors come from ErrnoStatus ("open folder" or "fsync folder").
Status FsyncDir(const std::string& dir);

// Creates `dir` and its parents if missing; a folder it created is made
// durable in its parent (FsyncDir), so a crash cannot lose the folder of
// files already acknowledged. Errors: ErrnoStatus("create folder", ...).
Status CreateFolderDurably(const std::string& dir);

}  // namespace zcrawl::writer

// Who holds a frontier's store: the one test of "in use by another
// frontier" that does not read an error's text (issue 48 point 6).
//
// RocksDB refuses a second open of a database with an IOError whose only
// distinguishing mark is its message ("While lock file: .../LOCK", "lock
// hold by current process"), the same code as a damaged file. So the store
// asks the lock itself: another process holds RocksDB's POSIX record lock
// on DB/LOCK (seen with fcntl F_GETLK, which reports another process's
// lock), or this process has the store open (a registry of open stores,
// kept by UrlStore; record locks are per process, so F_GETLK cannot see
// our own).
//
// Thread-safety: all functions may be called from any thread.
#pragma once

#include <string>

namespace zcrawl::frontier {

// True when a UrlStore of this process has `db_path` open, or another
// process holds the lock of the RocksDB database in `db_path`.
bool StoreHeld(const std::string& db_path);

// The registry of this process's open stores (UrlStore calls these).
void NoteStoreOpen(const std::string& db_path);
void NoteStoreClosed(const std::string& db_path);

}  // namespace zcrawl::frontier

// RaiseOpenFileLimit: lifts this process's soft limit on open files
// (RLIMIT_NOFILE, often 1024 by default) towards what it needs, up to the
// hard limit: a fetcher with --threads 4000 holds a socket or two per
// transfer, the frontier a connection per peer and RocksDB's files. Says so
// (warning) when the hard limit is lower than `wanted`, since the process
// will then fail connections with EMFILE past it.
#pragma once

#include <cstdint>
#include <string_view>

namespace zcrawl {

// `why` names what needs them, for the warning ("--threads 4000").
void RaiseOpenFileLimit(uint64_t wanted, std::string_view why);

// The soft limit in force (UINT64_MAX when unlimited or unknown).
uint64_t OpenFileLimit();

}  // namespace zcrawl

// HeapStats: what the process's allocator holds, when it is jemalloc (the
// three process kinds link it: CMakeLists.txt, zcrawl_allocator): the bytes
// handed out to the program, and the bytes of RAM it keeps for them
// (handed out, its metadata, and freed pages not yet given back to the
// kernel, which it keeps for dirty_decay_ms: frontier/main.cc). Their
// difference is what a memory budget of the program's own structures does
// not see. jemalloc is found at run time (its mallctl), so this builds and
// answers "unknown" without it (sanitizer builds, tests).
//
// Thread-safe (jemalloc's statistics are).
#pragma once

#include <cstdint>
#include <optional>

namespace zcrawl {

struct HeapStats {
  uint64_t allocated_bytes = 0;  // stats.allocated
  uint64_t resident_bytes = 0;   // stats.resident
};

// The allocator's statistics as of now; nullopt without jemalloc.
std::optional<HeapStats> ReadHeapStats();

}  // namespace zcrawl

// Probes of TCP ports on 127.0.0.1, for the launcher (which picks and waits
// for its components' ports) and for tests.
//
// Every answer is a moment's truth: another process may take a port right
// after FreeLoopbackPort returned it; the caller's bind then fails with
// "address in use", which it must report. Thread-safe (no shared state).
#pragma once

#include <cstdint>

namespace zcrawl {

// A port the kernel would give a new socket on 127.0.0.1 now; 0 on error.
uint16_t FreeLoopbackPort();
// True if 127.0.0.1:port can be bound now (SO_REUSEADDR, as servers bind).
bool LoopbackPortBindable(uint16_t port);
// True once something accepts TCP connections on 127.0.0.1:port.
bool LoopbackPortAccepts(uint16_t port);

}  // namespace zcrawl

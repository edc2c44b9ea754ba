// Names a process gives itself: the machine's host name and the run id each
// process puts in its envelopes. One definition for every process and tool.
// Pure apart from reading the host name and the OS's randomness;
// thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace zcrawl {

// gethostname(2), or "" where the machine has none.
std::string LocalHostName();

// `digits` random lowercase hex digits from std::random_device.
std::string RandomHex(int digits);

// "<role>-<pid>-<8 random hex>": unique per process run even where pids
// repeat (containers), since peers detect restarts by a changed sender id.
std::string MakeRunId(std::string_view role);

}  // namespace zcrawl

// Fault points: named places in the code where a test can make the process
// die with SIGKILL, at an instant no outside kill can hit reliably (between
// two fsyncs, say), as leveldb's fault-injection tests drop un-synced data.
//
// Armed only through the environment of the process, so production runs
// pay one predictable branch per point:
//   ZCRAWL_FAULT_POINT=NAME         the point that fires
//   ZCRAWL_FAULT_AFTER=N            on its Nth hit in this process (default 1)
//   ZCRAWL_FAULT_MARKER=PATH        required: the point fires only if PATH
//                                   does not exist, and creates it first
// The marker makes a fault fire once per test even though a supervisor
// restarts the process with the same environment, and it proves the fault
// happened: it holds the note the point gives ("what was true when it
// fired"), written and fsynced before the kill.
//
// Thread-safety: FaultPoint may be called from any thread.
#pragma once

#include <string>
#include <string_view>

namespace zcrawl {

// The armed point's name; empty when none is armed.
const std::string& ArmedFaultPoint();

// Counts a hit of `name`; on the armed hit, writes `note` to the marker and
// raises SIGKILL. Call FaultPoint below, which skips the note when unarmed.
void HitFaultPoint(std::string_view name, const std::string& note);

template <typename NoteFn>
inline void FaultPoint(std::string_view name, NoteFn&& note) {
  const std::string& armed = ArmedFaultPoint();
  if (armed.empty() || armed != name) return;
  HitFaultPoint(name, note());
}

}  // namespace zcrawl

// ShutdownSignal: turns SIGINT/SIGTERM into a flag that event loops poll.
// Install once in main; Requested() is async-signal-safe to set and cheap to
// read from any thread.
#pragma once

namespace zcrawl {

class ShutdownSignal {
 public:
  // Installs handlers for SIGINT and SIGTERM, and ignores SIGPIPE.
  static void Install();
  static bool Requested();
  // Which signal arrived (0 if none), for the exit message.
  static int SignalNumber();
  // For tests and for in-process requests to stop.
  static void Request();
};

}  // namespace zcrawl

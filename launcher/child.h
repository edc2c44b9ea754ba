// Child: one component process as the launcher's supervisor sees it
// (frontier, writer, a fetcher, or the one zcrawl-local of
// --single-process). ChildProcess is the real one (fork+exec); tests give
// ProcessSupervisor a fake whose exits they script against a fake clock.
//
// The supervisor keeps the restart bookkeeping (how often, when next):
// a Child only starts, reports its exit, and takes signals. A Child may be
// started again after Reap reported its exit.
//
// Used from the launcher's single thread.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace zcrawl::launcher {

class Child {
 public:
  virtual ~Child() = default;

  // Named in the launcher's messages ("frontier", "fetcher-2", ...).
  virtual const std::string& name() const = 0;
  // Starts the process; an error means it is not running.
  [[nodiscard]] virtual Status Start() = 0;
  // Non-blocking: true once, when the running process has exited; fills
  // exit_code (128+signal for a signal). False while it runs or when it is
  // not running.
  virtual bool Reap(int* exit_code) = 0;
  // Sends a signal if it is running; nothing otherwise.
  virtual void Signal(int signo) = 0;
  // Complete lines the process wrote to a captured stderr since the last
  // call (non-blocking; empty when nothing is captured).
  virtual std::vector<std::string> ReadLines() = 0;
};

}  // namespace zcrawl::launcher

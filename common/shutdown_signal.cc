#include "common/shutdown_signal.h"

#include <csignal>

namespace zcrawl {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void OnSignal(int signo) { g_signal = signo; }

}  // namespace

void ShutdownSignal::Install() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

bool ShutdownSignal::Requested() { return g_signal != 0; }
int ShutdownSignal::SignalNumber() { return g_signal; }
void ShutdownSignal::Request() { g_signal = SIGTERM; }

}  // namespace zcrawl

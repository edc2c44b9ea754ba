#include "tests/support/warc_checker.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "tests/support/test_process.h"

namespace zcrawl::testing {

namespace {

// Runs `command` (a shell line) and parses the JSON it prints.
WarcCheckResult RunJsonCommand(const std::string& command) {
  WarcCheckResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.summary = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (result.summary.is_discarded()) result.summary = {{"command", command}, {"output", out}};
  return result;
}

}  // namespace

WarcCheckResult RunWarcChecker(const std::string& path) {
  const char* env = std::getenv("ZCRAWL_WARC_CHECK");
  const std::string checker = env != nullptr ? env : SourceDir() + "/tests/writer/warc_check.py";
  return RunJsonCommand("python3 '" + checker + "' '" + path + "'");
}

WarcCheckResult CountWarcCaptures(const std::string& dir) {
  const std::string modules = BinDir() + "/../node/node_modules";
  if (!std::filesystem::exists(modules + "/warcio")) {
    return {-1, {{"error", "warcio is not installed in " + modules + " (./run test installs it)"}}};
  }
  return RunJsonCommand("node '" + SourceDir() + "/tests/node/warc_captures.mjs' '" + modules + "' '" + dir + "'");
}

}  // namespace zcrawl::testing

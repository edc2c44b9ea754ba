#include "tests/support/warc_checker.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>

#include "tests/support/test_process.h"

namespace zcrawl::testing {

WarcCheckResult RunWarcChecker(const std::string& path) {
  WarcCheckResult result;
  const char* env = std::getenv("ZCRAWL_WARC_CHECK");
  const std::string checker = env != nullptr ? env : SourceDir() + "/tests/writer/warc_check.py";
  const std::string command = "python3 '" + checker + "' '" + path + "'";
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

}  // namespace zcrawl::testing

#include "common/open_file_limit.h"

#include <sys/resource.h>

#include <algorithm>

#include <spdlog/spdlog.h>

namespace zcrawl {

void RaiseOpenFileLimit(uint64_t wanted, std::string_view why) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  if (limit.rlim_cur >= wanted) return;
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(wanted, limit.rlim_max);
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) limit.rlim_cur = before;
  if (limit.rlim_cur < wanted) {
    spdlog::warn("only {} open files allowed (hard limit), {} wants about {}: connections past it "
                 "fail (raise `ulimit -n` or LimitNOFILE=)",
                 limit.rlim_cur, why, wanted);
  } else {
    spdlog::debug("open files limit raised from {} to {} for {}", before, limit.rlim_cur, why);
  }
}

uint64_t OpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return limit.rlim_cur;
}

}  // namespace zcrawl

#include "launcher/crawl_end.h"

#include <nlohmann/json.hpp>

namespace zcrawl::launcher {

CrawlEnd JudgeCrawlEnd(std::string_view summary_json, int result, uint32_t frontier_restarts) {
  const auto json = nlohmann::json::parse(summary_json, nullptr, /*allow_exceptions=*/false);
  CrawlEnd end;
  end.exit_code = result;
  if (!json.is_object()) return end;
  end.finished_earlier = frontier_restarts == 0 && json.value("already_finished", false);
  if (result == 0 && json.contains("finished") && !json.value("finished", true)) {
    end.exit_code = kStopped;  // the frontier stopped on an operator's stop
    return end;
  }
  const bool fetched_nothing = json.value("done", uint64_t{1}) == 0;
  if (result == 0 && !end.finished_earlier && fetched_nothing) end.exit_code = kNothingFetched;
  return end;
}

}  // namespace zcrawl::launcher

#include "tests/support/frontier_state.h"

#include <gtest/gtest.h>

#include "frontier/url_store.h"

namespace zcrawl::testing {

std::map<std::string, std::string> FailedUrls(const std::string& state_dir) {
  std::map<std::string, std::string> failed;
  frontier::UrlStoreOptions options;
  options.dir = state_dir;
  options.read_only = true;
  auto store = frontier::UrlStore::Open(options);
  if (!store.ok()) {
    ADD_FAILURE() << "cannot open the frontier's store in " << state_dir << ": " << store.status().ToString();
    return failed;
  }
  const Status s = (*store)->ForEachSeen([&](const frontier::SeenEntry& entry) {
    if (entry.state == frontier::SeenState::kFailed) failed[entry.url] = entry.reason;
    return true;
  });
  if (!s.ok()) ADD_FAILURE() << "cannot read the frontier's store in " << state_dir << ": " << s.ToString();
  return failed;
}

}  // namespace zcrawl::testing

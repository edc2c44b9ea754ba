#include "tests/support/frontier_state.h"

#include <gtest/gtest.h>

#include <functional>

#include "frontier/store/url_store.h"

namespace zcrawl::testing {

namespace {

// Visits every seen entry of the store under `state_dir`, opened read-only.
Status ForEachSeen(const std::string& state_dir, const std::function<void(const frontier::SeenEntry&)>& visit) {
  frontier::UrlStoreOptions options;
  options.dir = state_dir;
  options.read_only = true;
  auto store = frontier::UrlStore::Open(options);
  if (!store.ok()) return store.status();
  return (*store)->ForEachSeen([&](const frontier::SeenEntry& entry) {
    visit(entry);
    return true;
  });
}

}  // namespace

std::map<std::string, std::string> FailedUrls(const std::string& state_dir) {
  std::map<std::string, std::string> failed;
  const Status s = ForEachSeen(state_dir, [&](const frontier::SeenEntry& entry) {
    if (entry.state == frontier::SeenState::kFailed) failed[entry.url] = entry.reason;
  });
  if (!s.ok()) ADD_FAILURE() << "cannot read the frontier's store in " << state_dir << ": " << s.ToString();
  return failed;
}

std::string ReadUrlStates(const std::string& state_dir, std::map<uint64_t, int>* states) {
  const Status s = ForEachSeen(state_dir, [&](const frontier::SeenEntry& entry) {
    (*states)[entry.fingerprint] = static_cast<int>(entry.state);
  });
  return s.ok() ? "" : s.message();
}

}  // namespace zcrawl::testing

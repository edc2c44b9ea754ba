#include "tests/support/served_site_test.h"

#include <chrono>
#include <thread>

#include "tests/support/crawl_output.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {

void ServedSiteTest::SetUp() {
  served_ = std::make_unique<ServedSite>(pages_);
  foreign_ = served_->foreign.get();
  server_ = served_->server.get();
  site_ = served_->site.get();
  dir_ = MakeTempDir(dir_prefix_);
}

bool ServedSiteTest::WaitForRequests(uint64_t n, int timeout_ms) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (server_->total_requests() >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

void ServedSiteTest::ExpectEveryPageStoredOnce(const std::string& out_dir) const {
  auto index = ReadIndex(out_dir);
  auto expect_once = [&](const std::string& url, int status) {
    auto it = index.find(url);
    if (it == index.end()) {
      ADD_FAILURE() << "page not stored: " << url;
      return;
    }
    EXPECT_EQ(it->second.size(), 1u) << "stored more than once: " << url;
    EXPECT_EQ(it->second[0].status, status) << url;
  };
  for (const auto& url : site_->ExpectedOk()) expect_once(url, 200);
  for (const auto& url : site_->ExpectedNotFound()) expect_once(url, 404);
  EXPECT_EQ(index.size(), site_->ExpectedOk().size() + site_->ExpectedNotFound().size());
  EXPECT_EQ(foreign_->total_requests(), 0u) << "contacted a host outside the scope";
}

}  // namespace zcrawl::testing

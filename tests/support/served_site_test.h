// ServedSiteTest: the fixture of end-to-end crawl tests. A GeneratedSite
// served on 127.0.0.1 with a "foreign" host on 127.0.0.2 that no crawl may
// contact, a fresh folder, and the checks every such test makes of what a
// crawl stored.
//
// Thread-safety: as any gtest fixture, the test's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/generated_site.h"
#include "tests/support/test_http_server.h"

namespace zcrawl::testing {

class ServedSiteTest : public ::testing::Test {
 protected:
  // A site of `pages` pages; the folder is a fresh MakeTempDir(dir_prefix).
  ServedSiteTest(int pages, std::string dir_prefix) : pages_(pages), dir_prefix_(std::move(dir_prefix)) {}

  void SetUp() override;

  // Waits until the site has answered at least `n` requests.
  bool WaitForRequests(uint64_t n, int timeout_ms = 60000) const;

  // What a crawl of the whole site must leave in `out_dir` (its index):
  // every reachable page stored exactly once with its status (200, or 404
  // for the site's broken links), nothing else, and no request to the
  // foreign host.
  void ExpectEveryPageStoredOnce(const std::string& out_dir) const;

  std::unique_ptr<ServedSite> served_;
  TestHttpServer* foreign_ = nullptr;
  TestHttpServer* server_ = nullptr;
  GeneratedSite* site_ = nullptr;
  std::string dir_;

 private:
  const int pages_;
  const std::string dir_prefix_;
};

}  // namespace zcrawl::testing

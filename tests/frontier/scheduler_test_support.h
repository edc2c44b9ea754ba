// Helpers shared by the scheduler's tests: a fetcher's report for a lease,
// and a store on disk.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "frontier/store/url_store.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// What a fetcher reports for `item`: fetched, with this HTTP status.
inline v1::FetchReport Report(const v1::WorkItem& item, uint32_t http = 200,
                              v1::FetchStatus status = v1::FETCH_STATUS_OK) {
  v1::FetchReport r;
  r.set_lease_id(item.lease_id());
  r.set_url(item.url());
  r.set_status(status);
  r.set_http_status(http);
  return r;
}

// A store in `dir`, or null (the test fails) if it cannot be opened.
inline std::unique_ptr<UrlStore> OpenStore(const std::string& dir) {
  UrlStoreOptions options;
  options.dir = dir;
  auto store = UrlStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(*store) : nullptr;
}

}  // namespace zcrawl::frontier

// GeneratedSite: a deterministic test site with links of every kind:
// relative, "../", root-relative, absolute with fragments, duplicates,
// area/iframe, 404s, mailto: and javascript:, nofollow, robots-disallowed
// paths and links to another host (out of scope). Knows which URLs a
// correct crawl must store and which it must never request.
//
// Immutable after construction; Serve is safe from many threads.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "tests/support/test_http_server.h"

namespace zcrawl::testing {

class GeneratedSite {
 public:
  // `origin` is where this site is served ("http://127.0.0.1:PORT");
  // `foreign_origin` another host whose links must not be followed.
  GeneratedSite(int pages, std::string origin, std::string foreign_origin);

  TestResponse Serve(const TestRequest& request) const;

  // Absolute URLs that must end up stored with status 200.
  std::set<std::string> ExpectedOk() const;
  // Absolute URLs that must be stored with status 404.
  std::set<std::string> ExpectedNotFound() const;
  // Paths on this origin that must never be requested.
  bool IsForbiddenPath(const std::string& target) const;

  static std::string PagePath(int i);

 private:
  std::string PageHtml(int i) const;

  int pages_;
  std::string origin_;
  std::string foreign_origin_;
};

// A GeneratedSite served on 127.0.0.1 together with the "foreign" host on
// 127.0.0.2 whose links are out of scope (and which counts any request that
// reaches it). Both servers run until the object is destroyed.
struct ServedSite {
  explicit ServedSite(int pages);
  // Stops the servers before the site they serve goes away.
  ~ServedSite();
  ServedSite(const ServedSite&) = delete;
  ServedSite& operator=(const ServedSite&) = delete;

  std::unique_ptr<TestHttpServer> foreign;
  std::unique_ptr<TestHttpServer> server;
  std::unique_ptr<GeneratedSite> site;
};

}  // namespace zcrawl::testing

// A generated site shaped as a tree, for crawls whose faults need a site
// that is quick to describe and big enough to interrupt: "/" is page 0,
// page N ("/p/N") links to pages N*fan_out+1 ... below `pages` and back to
// "/"; robots.txt is 404. Each answer can be slowed (to stretch the crawl)
// and padded (to fill a disk). Pure function; thread-safe.
#pragma once

#include <cstdlib>
#include <string>

#include "tests/support/test_http_server.h"

namespace zcrawl::testing {

struct TreeSite {
  int pages = 400;
  int fan_out = 20;
  int delay_ms = 0;        // before each answer
  size_t padding_bytes = 0;  // of text added to each page

  TestResponse Serve(const TestRequest& request) const {
    TestResponse response;
    response.delay_ms = delay_ms;
    if (request.target == "/robots.txt") {
      response.status = 404;
      return response;
    }
    const int n = request.target == "/" ? 0 : std::atoi(request.target.c_str() + 3);
    response.headers.push_back({"Content-Type", "text/html"});
    response.body = "<a href=/>home</a>";
    for (int i = 1; i <= fan_out; ++i) {
      const int child = n * fan_out + i;
      if (child < pages) response.body += "<a href=/p/" + std::to_string(child) + ">x</a>";
    }
    if (padding_bytes > 0) response.body += "<p>" + std::string(padding_bytes, static_cast<char>('a' + n % 26)) + "</p>";
    return response;
  }
};

}  // namespace zcrawl::testing

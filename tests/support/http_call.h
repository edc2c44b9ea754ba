// One HTTP request from a test (libcurl, blocking): the status and body a
// server answered, to judge an HTTP endpoint of ours from outside.
#pragma once

#include <string>
#include <vector>

namespace zcrawl::testing {

struct HttpAnswer {
  long status = 0;  // 0: no answer (refused, timed out)
  std::string body;
};

// `method` "GET", "HEAD" or "POST" (with `body`); `headers` as "Name: value".
HttpAnswer HttpCall(const std::string& method, const std::string& url, const std::string& body = "",
                    const std::vector<std::string>& headers = {});

}  // namespace zcrawl::testing

#include "common/robots_inspect.h"

#include <string>

#include "common/robots_rules.h"

namespace zcrawl {
namespace {

std::string_view TrimAscii(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const std::size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  const std::size_t end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

// "http://h/a?b#f" -> "/a?b", "http://h?b" -> "/?b", "http://h" -> "/",
// "/a#f" -> "/a". Not a URL parser: just enough for robots matching.
std::string PathAndQuery(std::string_view url) {
  if (const std::size_t scheme_end = url.find("://");
      scheme_end != std::string_view::npos) {
    const std::string_view rest = url.substr(scheme_end + 3);
    const std::size_t path_start = rest.find_first_of("/?#");
    url = path_start == std::string_view::npos ? std::string_view()
                                               : rest.substr(path_start);
  }
  url = url.substr(0, url.find('#'));
  std::string path(url);
  if (path.empty() || path.front() != '/') path.insert(path.begin(), '/');
  return path;
}

}  // namespace

int RunInspectRobots(std::string_view robots_body, std::string_view agent,
                     std::istream& urls, std::ostream& out) {
  const RobotsRules rules = RobotsRules::Parse(robots_body, TrimAscii(agent));
  std::string line;
  while (std::getline(urls, line)) {
    const std::string_view url = TrimAscii(line);
    if (url.empty()) continue;
    out << (rules.IsAllowed(PathAndQuery(url)) ? "allow" : "disallow") << '\n';
  }
  out.flush();
  return out ? 0 : 1;
}

}  // namespace zcrawl

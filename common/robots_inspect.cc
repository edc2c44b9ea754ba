#include "common/robots_inspect.h"

#include <string>

#include "common/ascii.h"
#include "common/robots_rules.h"

namespace zcrawl {

int RunInspectRobots(std::string_view robots_body, std::string_view agent,
                     std::istream& urls, std::ostream& out) {
  const RobotsRules rules = RobotsRules::Parse(robots_body, TrimAsciiWhitespace(agent));
  std::string line;
  std::string scratch;
  while (std::getline(urls, line)) {
    const std::string_view url = TrimAsciiWhitespace(line);
    if (url.empty()) continue;
    out << (rules.IsAllowed(RobotsTarget(url, scratch)) ? "allow" : "disallow") << '\n';
  }
  out.flush();
  return out ? 0 : 1;
}

}  // namespace zcrawl

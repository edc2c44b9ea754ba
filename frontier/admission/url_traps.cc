#include "frontier/admission/url_traps.h"

#include <algorithm>
#include <array>
#include <vector>

namespace zcrawl::frontier {
namespace {

// Whether a value occurs more than `max_repeat` times among `segments`
// (sorted in place).
template <typename Segments>
bool AnyOccursMoreThan(Segments& segments, size_t size, uint32_t max_repeat) {
  std::sort(segments.begin(), segments.begin() + static_cast<std::ptrdiff_t>(size));
  uint32_t run = 1;
  for (size_t i = 1; i < size; ++i) {
    run = segments[i] == segments[i - 1] ? run + 1 : 1;
    if (run > max_repeat) return true;
  }
  return false;
}

}  // namespace

bool PathRepeats(std::string_view path, uint32_t max_repeat) {
  // No segment can repeat past the limit with that few slashes (most URLs).
  if (static_cast<size_t>(std::count(path.begin(), path.end(), '/')) <= max_repeat) return false;
  std::array<std::string_view, 64> inline_segments;
  std::vector<std::string_view> more;
  size_t size = 0;
  for (size_t start = 0; start < path.size();) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) {
      const std::string_view segment = path.substr(start, end - start);
      if (size < inline_segments.size()) {
        inline_segments[size] = segment;
      } else {
        if (more.empty()) more.assign(inline_segments.begin(), inline_segments.end());
        more.push_back(segment);
      }
      ++size;
    }
    start = end + 1;
  }
  return more.empty() ? AnyOccursMoreThan(inline_segments, size, max_repeat)
                      : AnyOccursMoreThan(more, size, max_repeat);
}

uint32_t QueryParamCount(std::string_view search) {
  if (search.starts_with('?')) search.remove_prefix(1);
  uint32_t count = 0;
  for (size_t start = 0; start < search.size();) {
    size_t end = search.find('&', start);
    if (end == std::string_view::npos) end = search.size();
    if (end > start) ++count;
    start = end + 1;
  }
  return count;
}

}  // namespace zcrawl::frontier

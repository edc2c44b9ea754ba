#include "frontier/scheduler/crawl_tallies.h"

#include <charconv>

namespace zcrawl::frontier {
namespace {

void EncodeCounts(char kind, const CrawlTallies::Counts& counts, std::string& out) {
  for (const auto& [name, n] : counts) {
    out += kind;
    out += ' ';
    out += std::to_string(n);
    out += ' ';
    // Our causes are single-line names; a newline would split the entry.
    for (char c : name) out += c == '\n' ? ' ' : c;
    out += '\n';
  }
}

}  // namespace

std::string CrawlTallies::Encode() {
  std::string out;
  EncodeCounts('f', failures_, out);
  EncodeCounts('r', retries_, out);
  EncodeCounts('s', status_classes_, out);
  dirty_ = false;
  return out;
}

size_t CrawlTallies::Restore(std::string_view text) {
  size_t skipped = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty()) continue;
    Counts* counts = line.size() < 4 || line[1] != ' ' ? nullptr
                     : line[0] == 'f'                  ? &failures_
                     : line[0] == 'r'                  ? &retries_
                     : line[0] == 's'                  ? &status_classes_
                                                       : nullptr;
    uint64_t n = 0;
    const char* first = line.data() + 2;
    const char* last = line.data() + line.size();
    const auto parsed = counts ? std::from_chars(first, last, n) : std::from_chars_result{first, std::errc::invalid_argument};
    if (parsed.ec != std::errc() || parsed.ptr == last || *parsed.ptr != ' ' || parsed.ptr + 1 == last) {
      ++skipped;
      continue;
    }
    (*counts)[std::string(parsed.ptr + 1, last)] += n;
  }
  return skipped;
}

}  // namespace zcrawl::frontier

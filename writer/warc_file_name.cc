#include "writer/warc_file_name.h"

#include <algorithm>

namespace zcrawl::writer {
namespace {

bool AllDigits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string WarcFileName(std::string_view prefix, std::string_view stamp, uint64_t serial) {
  std::string digits = std::to_string(serial);
  if (digits.size() < 5) digits.insert(0, 5 - digits.size(), '0');
  std::string name(prefix);
  name.append("-").append(stamp).append("-").append(digits).append(kWarcFileSuffix);
  return name;
}

bool ParseWarcFileSerial(std::string_view name, std::string_view prefix, uint64_t& serial) {
  if (name.size() <= prefix.size() + 1 + kWarcFileSuffix.size() || !name.starts_with(prefix) ||
      name[prefix.size()] != '-' || !name.ends_with(kWarcFileSuffix)) {
    return false;
  }
  std::string_view rest = name.substr(prefix.size() + 1);
  rest.remove_suffix(kWarcFileSuffix.size());
  const size_t dash = rest.find('-');
  if (dash != 14 || rest.size() == 15) return false;
  const std::string_view stamp = rest.substr(0, 14);
  const std::string_view digits = rest.substr(15);
  if (!AllDigits(stamp) || !AllDigits(digits) || digits.size() > 18) return false;
  uint64_t value = 0;
  for (char c : digits) value = value * 10 + static_cast<uint64_t>(c - '0');
  serial = value;
  return true;
}

bool ParseWarcOrAsideSerial(std::string_view name, std::string_view prefix, uint64_t& serial) {
  if (name.ends_with(kUnacknowledgedSuffix)) name.remove_suffix(kUnacknowledgedSuffix.size());
  return ParseWarcFileSerial(name, prefix, serial);
}

}  // namespace zcrawl::writer

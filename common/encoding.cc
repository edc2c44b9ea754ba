#include "common/encoding.h"

#include <algorithm>

namespace zcrawl {
namespace {

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kBase32Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

constexpr int64_t kMsPerDay = 86'400'000;
// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
constexpr int64_t kMinMs = -62'167'219'200'000;
constexpr int64_t kMaxMs = 253'402'300'799'999;

struct CivilDate {
  int64_t year;
  unsigned month;  // 1-12
  unsigned day;    // 1-31
};

// Proleptic Gregorian date of a day count since 1970-01-01 (the well-known
// era-based algorithm: 400-year eras of 146097 days).
CivilDate CivilFromDays(int64_t days) {
  days += 719468;  // shift the epoch to 0000-03-01
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned mp = (5 * day_of_year + 2) / 153;  // month, March = 0
  CivilDate date;
  date.day = day_of_year - (153 * mp + 2) / 5 + 1;
  date.month = mp < 10 ? mp + 3 : mp - 9;
  date.year = static_cast<int64_t>(year_of_era) + era * 400 + (date.month <= 2 ? 1 : 0);
  return date;
}

// The inverse of CivilFromDays (the same algorithm's other half).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<int64_t>(day_of_era) - 719468;
}

// The number of `width` ASCII digits at text[pos], or -1.
int64_t ReadDigits(std::string_view text, size_t pos, int width) {
  if (pos + static_cast<size_t>(width) > text.size()) return -1;
  int64_t value = 0;
  for (int i = 0; i < width; ++i) {
    const char c = text[pos + static_cast<size_t>(i)];
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

void AppendDigits(std::string& out, int64_t value, int width) {
  char buf[8];
  for (int i = width - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  out.append(buf, static_cast<size_t>(width));
}

}  // namespace

std::string Base64Encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out.push_back(kBase64Alphabet[(v >> 18) & 63]);
    out.push_back(kBase64Alphabet[(v >> 12) & 63]);
    out.push_back(kBase64Alphabet[(v >> 6) & 63]);
    out.push_back(kBase64Alphabet[v & 63]);
  }
  const size_t rest = data.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t{p[i]} << 16;
    if (rest == 2) v |= uint32_t{p[i + 1]} << 8;
    out.push_back(kBase64Alphabet[(v >> 18) & 63]);
    out.push_back(kBase64Alphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string Base32Encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 4) / 5 * 8);
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  // Five input bytes make eight output characters; a short last group is
  // zero-filled and its unused characters become '='.
  for (size_t i = 0; i < data.size(); i += 5) {
    const size_t n = std::min<size_t>(5, data.size() - i);
    uint64_t v = 0;
    for (size_t k = 0; k < 5; ++k) v = (v << 8) | (k < n ? p[i + k] : 0);
    // Characters carrying input bits: ceil(n * 8 / 5).
    const size_t chars = (n * 8 + 4) / 5;
    for (size_t k = 0; k < 8; ++k) {
      out.push_back(k < chars ? kBase32Alphabet[(v >> (35 - 5 * k)) & 31] : '=');
    }
  }
  return out;
}

std::string FormatRfc3339Millis(int64_t ms) {
  ms = std::clamp(ms, kMinMs, kMaxMs);
  int64_t days = ms / kMsPerDay;
  int64_t ms_of_day = ms % kMsPerDay;
  if (ms_of_day < 0) {
    ms_of_day += kMsPerDay;
    --days;
  }
  const CivilDate date = CivilFromDays(days);
  std::string out;
  out.reserve(24);
  AppendDigits(out, date.year, 4);
  out.push_back('-');
  AppendDigits(out, date.month, 2);
  out.push_back('-');
  AppendDigits(out, date.day, 2);
  out.push_back('T');
  AppendDigits(out, ms_of_day / 3'600'000, 2);
  out.push_back(':');
  AppendDigits(out, ms_of_day / 60'000 % 60, 2);
  out.push_back(':');
  AppendDigits(out, ms_of_day / 1000 % 60, 2);
  out.push_back('.');
  AppendDigits(out, ms_of_day % 1000, 3);
  out.push_back('Z');
  return out;
}

std::optional<int64_t> ParseRfc3339Millis(std::string_view text) {
  const int64_t year = ReadDigits(text, 0, 4), month = ReadDigits(text, 5, 2), day = ReadDigits(text, 8, 2);
  const int64_t hour = ReadDigits(text, 11, 2), minute = ReadDigits(text, 14, 2), second = ReadDigits(text, 17, 2);
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || second < 0 || second > 60) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t millis = 0;
  if (text[pos] == '.') {
    ++pos;
    const size_t digits_start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (pos - digits_start < 3) millis = millis * 10 + (text[pos] - '0');
      ++pos;
    }
    if (pos == digits_start) return std::nullopt;
    for (size_t n = pos - digits_start; n < 3; ++n) millis *= 10;
  }
  if (pos + 1 != text.size() || text[pos] != 'Z') return std::nullopt;
  const int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return ((days * 24 + hour) * 60 + minute) * 60'000 + second * 1000 + millis;
}

std::string FormatWarcDate(int64_t ms) { return FormatRfc3339Millis(ms); }

}  // namespace zcrawl

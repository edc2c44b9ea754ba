#include "common/utf8.h"

#include <cstdint>
#include <cstring>

namespace zcrawl {
namespace {

constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";  // U+FFFD

bool HasNonAsciiOrZero(uint64_t word) {
  constexpr uint64_t kLow = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  return ((word | ((word - kLow) & ~word)) & kHigh) != 0;
}

// Appends `text` to `out`, replacing each invalid unit (and NUL when
// `replace_nul`) with U+FFFD.
void AppendUtf8Replacing(std::string_view text, bool replace_nul, std::string* out) {
  while (!text.empty()) {
    const size_t bad = FindUtf8Problem(text, replace_nul);
    if (bad == std::string_view::npos) {
      out->append(text);
      return;
    }
    out->append(text.substr(0, bad));
    size_t length = 1;
    if (static_cast<uint8_t>(text[bad]) >= 0x80) ExamineUtf8Sequence(text, bad, &length);
    out->append(kReplacementUtf8);
    text.remove_prefix(bad + length);
  }
}

}  // namespace

Utf8Sequence ExamineUtf8Sequence(std::string_view text, size_t pos, size_t* length) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(pos);
  size_t needed = 0;
  uint8_t lower = 0x80;
  uint8_t upper = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    needed = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    needed = 2;
    if (lead == 0xE0) lower = 0xA0;
    if (lead == 0xED) upper = 0x9F;  // no UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    needed = 3;
    if (lead == 0xF0) lower = 0x90;
    if (lead == 0xF4) upper = 0x8F;  // nothing above U+10FFFF
  } else {
    *length = 1;
    return Utf8Sequence::kInvalid;
  }
  size_t i = 1;
  for (; i <= needed; ++i) {
    if (pos + i >= text.size()) {
      *length = i;
      return Utf8Sequence::kTruncated;
    }
    const uint8_t b = byte(pos + i);
    if (b < lower || b > upper) {
      *length = i;
      return Utf8Sequence::kInvalid;
    }
    lower = 0x80;
    upper = 0xBF;
  }
  *length = i;
  return Utf8Sequence::kValid;
}

size_t FindUtf8Problem(std::string_view text, bool nul_is_bad) {
  size_t pos = 0;
  const size_t size = text.size();
  while (pos < size) {
    if (pos + 8 <= size) {
      uint64_t word;
      std::memcpy(&word, text.data() + pos, 8);
      if (!HasNonAsciiOrZero(word)) {
        pos += 8;
        continue;
      }
    }
    const auto b = static_cast<uint8_t>(text[pos]);
    if (b < 0x80) {
      if (b == 0 && nul_is_bad) return pos;
      ++pos;
      continue;
    }
    size_t length = 0;
    if (ExamineUtf8Sequence(text, pos, &length) != Utf8Sequence::kValid) return pos;
    pos += length;
  }
  return std::string_view::npos;
}

std::string RepairUtf8(std::string text, bool replace_nul) {
  const size_t bad = FindUtf8Problem(text, replace_nul);
  if (bad == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + text.size() / 8 + 16);
  out.append(text, 0, bad);
  AppendUtf8Replacing(std::string_view(text).substr(bad), replace_nul, &out);
  return out;
}

char32_t DecodeUtf8CodePoint(std::string_view text, size_t pos, size_t* length) {
  const uint8_t lead = static_cast<uint8_t>(text[pos]);
  if (lead < 0x80) {
    *length = 1;
    return lead;
  }
  const size_t extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
  char32_t cp = lead & (0x3F >> extra);
  for (size_t k = 1; k <= extra && pos + k < text.size(); ++k) {
    cp = (cp << 6) | (static_cast<uint8_t>(text[pos + k]) & 0x3F);
  }
  *length = extra + 1;
  return cp;
}

void AppendUtf8CodePoint(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace zcrawl

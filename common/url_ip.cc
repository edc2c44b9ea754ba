#include "common/url_host.h"

#include "common/ascii.h"

namespace zcrawl::url_internal {

constexpr int kEof = -1;

namespace {

// The IPv4 number parser. Values saturate above 2^32, which every caller
// treats as out of range anyway.
bool ParseIpv4Number(std::string_view s, uint64_t* value) {
  if (s.empty()) return false;
  int radix = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    radix = 16;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0') {
    radix = 8;
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  for (char c : s) {
    const int d = HexDigitValue(c);
    if (d < 0 || d >= radix) return false;
    v = v * radix + d;
    if (v > (uint64_t{1} << 32)) v = (uint64_t{1} << 32) + 1;
  }
  *value = v;
  return true;
}

}  // namespace

bool EndsInNumber(std::string_view s) {
  if (s.empty()) return false;
  if (s.back() == '.') s.remove_suffix(1);
  const size_t dot = s.rfind('.');
  const std::string_view last = dot == kNpos ? s : s.substr(dot + 1);
  if (last.empty()) return false;
  bool all_digits = true;
  for (char c : last) all_digits = all_digits && IsAsciiDigit(c);
  if (all_digits) return true;
  if (last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
    for (size_t i = 2; i < last.size(); ++i) {
      if (HexDigitValue(last[i]) < 0) return false;
    }
    return true;
  }
  return false;
}

bool ParseIpv4(std::string_view s, uint32_t* address) {
  if (!s.empty() && s.back() == '.' && s.size() > 1) s.remove_suffix(1);
  uint64_t numbers[4];
  size_t count = 0;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view part =
        s.substr(start, dot == kNpos ? kNpos : dot - start);
    if (count == 4) return false;  // more than four parts
    if (!ParseIpv4Number(part, &numbers[count])) return false;
    ++count;
    if (dot == kNpos) break;
    start = dot + 1;
  }
  for (size_t i = 0; i + 1 < count; ++i) {
    if (numbers[i] > 255) return false;
  }
  if (numbers[count - 1] >= (uint64_t{1} << (8 * (5 - count)))) return false;
  uint64_t v = numbers[count - 1];
  for (size_t i = 0; i + 1 < count; ++i) v += numbers[i] << (8 * (3 - i));
  *address = static_cast<uint32_t>(v);
  return true;
}

void AppendDecimal(std::string& out, uint32_t v) {
  char buf[10];
  int len = 0;
  do {
    buf[len++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (len > 0) out += buf[--len];
}


void AppendIpv4(std::string& out, uint32_t address) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    AppendDecimal(out, (address >> shift) & 0xFF);
    if (shift != 0) out += '.';
  }
}

// The IPv6 parser, over the text between the brackets.
bool ParseIpv6(std::string_view in, uint16_t address[8]) {
  for (int i = 0; i < 8; ++i) address[i] = 0;
  const size_t n = in.size();
  auto at = [&](size_t p) -> int {
    return p < n ? static_cast<uint8_t>(in[p]) : kEof;
  };
  int piece = 0;
  int compress = -1;
  size_t p = 0;
  if (at(p) == ':') {
    if (at(p + 1) != ':') return false;
    p += 2;
    compress = ++piece;
  }
  while (at(p) != kEof) {
    if (piece == 8) return false;
    if (at(p) == ':') {
      if (compress != -1) return false;
      ++p;
      compress = ++piece;
      continue;
    }
    uint32_t value = 0;
    int length = 0;
    while (length < 4 && HexDigitValue(at(p)) >= 0) {
      value = value * 16 + HexDigitValue(at(p));
      ++p;
      ++length;
    }
    if (at(p) == '.') {
      if (length == 0) return false;
      p -= length;
      if (piece > 6) return false;
      int numbers_seen = 0;
      while (at(p) != kEof) {
        int ipv4_piece = -1;
        if (numbers_seen > 0) {
          if (at(p) == '.' && numbers_seen < 4) {
            ++p;
          } else {
            return false;
          }
        }
        if (!IsAsciiDigit(at(p))) return false;
        while (IsAsciiDigit(at(p))) {
          const int number = at(p) - '0';
          if (ipv4_piece == -1) {
            ipv4_piece = number;
          } else if (ipv4_piece == 0) {
            return false;
          } else {
            ipv4_piece = ipv4_piece * 10 + number;
          }
          if (ipv4_piece > 255) return false;
          ++p;
        }
        address[piece] = static_cast<uint16_t>(address[piece] * 0x100 + ipv4_piece);
        ++numbers_seen;
        if (numbers_seen == 2 || numbers_seen == 4) ++piece;
      }
      if (numbers_seen != 4) return false;
      break;
    } else if (at(p) == ':') {
      ++p;
      if (at(p) == kEof) return false;
    } else if (at(p) != kEof) {
      return false;
    }
    address[piece] = static_cast<uint16_t>(value);
    ++piece;
  }
  if (compress != -1) {
    int swaps = piece - compress;
    piece = 7;
    while (piece != 0 && swaps > 0) {
      const uint16_t tmp = address[piece];
      address[piece] = address[compress + swaps - 1];
      address[compress + swaps - 1] = tmp;
      --piece;
      --swaps;
    }
  } else if (piece != 8) {
    return false;
  }
  return true;
}

void AppendIpv6(std::string& out, const uint16_t address[8]) {
  // Longest run (length > 1) of zero pieces, first one on ties.
  int compress = -1;
  int longest = 1;
  for (int i = 0; i < 8;) {
    if (address[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && address[j] == 0) ++j;
    if (j - i > longest) {
      longest = j - i;
      compress = i;
    }
    i = j;
  }
  static constexpr char kLowerHex[] = "0123456789abcdef";
  out += '[';
  for (int i = 0; i < 8; ++i) {
    if (i == compress) {
      out += (i == 0) ? "::" : ":";
      i += longest - 1;
      continue;
    }
    const uint16_t v = address[i];
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int digit = (v >> shift) & 0xF;
      if (digit != 0 || started || shift == 0) {
        out += kLowerHex[digit];
        started = true;
      }
    }
    if (i != 7) out += ':';
  }
  out += ']';
}

}  // namespace zcrawl::url_internal

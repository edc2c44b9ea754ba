#include "fetcher/srcset.h"

#include "common/ascii.h"

namespace zcrawl::fetcher {
namespace {


// "Valid non-negative integer": one or more digits. Sets *zero when it is 0.
bool IsNonNegativeInteger(std::string_view s, bool* zero) {
  if (s.empty()) return false;
  *zero = true;
  for (char c : s) {
    if (!IsAsciiDigit(c)) return false;
    if (c != '0') *zero = false;
  }
  return true;
}

// "Valid floating-point number": -?(D+|D*.D+)([eE][+-]?D+)?
bool IsFloatingPoint(std::string_view s, bool* negative) {
  size_t i = 0;
  *negative = false;
  if (i < s.size() && s[i] == '-') {
    *negative = true;
    ++i;
  }
  size_t digits = 0;
  while (i < s.size() && IsAsciiDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t fraction = 0;
    while (i < s.size() && IsAsciiDigit(s[i])) ++i, ++fraction;
    if (fraction == 0) return false;
    digits += fraction;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exponent = 0;
    while (i < s.size() && IsAsciiDigit(s[i])) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == s.size();
}

// The standard's descriptor parser: true when the candidate is kept.
bool DescriptorsValid(const std::vector<std::string_view>& descriptors) {
  bool width = false, density = false, height = false;
  for (std::string_view d : descriptors) {
    const char unit = d.back();
    const std::string_view value = d.substr(0, d.size() - 1);
    bool zero = false, negative = false;
    if (unit == 'w' && IsNonNegativeInteger(value, &zero)) {
      if (width || density || zero) return false;
      width = true;
    } else if (unit == 'x' && IsFloatingPoint(value, &negative)) {
      if (width || density || height || negative) return false;
      density = true;
    } else if (unit == 'h' && IsNonNegativeInteger(value, &zero)) {
      if (height || density || zero) return false;
      height = true;
    } else {
      return false;
    }
  }
  return !height || width;
}

}  // namespace

void ParseSrcset(std::string_view s, std::vector<std::string>* urls) {
  size_t p = 0;
  std::vector<std::string_view> descriptors;
  while (true) {
    while (p < s.size() && (IsAsciiWhitespace(s[p]) || s[p] == ',')) ++p;
    if (p >= s.size()) return;
    const size_t url_start = p;
    while (p < s.size() && !IsAsciiWhitespace(s[p])) ++p;
    std::string_view url = s.substr(url_start, p - url_start);
    descriptors.clear();
    if (url.back() == ',') {
      while (!url.empty() && url.back() == ',') url.remove_suffix(1);
    } else {
      // The descriptor tokenizer: up to a comma outside parentheses.
      while (p < s.size() && IsAsciiWhitespace(s[p])) ++p;
      enum { kInDescriptor, kInParens, kAfterDescriptor } state = kInDescriptor;
      size_t start = p;
      bool done = false;
      while (!done) {
        const bool end = p >= s.size();
        const char c = end ? '\0' : s[p];
        switch (state) {
          case kInDescriptor:
            if (end) {
              if (p > start) descriptors.push_back(s.substr(start, p - start));
              done = true;
            } else if (IsAsciiWhitespace(c)) {
              if (p > start) descriptors.push_back(s.substr(start, p - start));
              state = kAfterDescriptor;
            } else if (c == ',') {
              if (p > start) descriptors.push_back(s.substr(start, p - start));
              ++p;
              done = true;
              continue;
            } else if (c == '(') {
              state = kInParens;
            }
            break;
          case kInParens:
            if (end) {
              descriptors.push_back(s.substr(start, p - start));
              done = true;
            } else if (c == ')') {
              state = kInDescriptor;
            }
            break;
          case kAfterDescriptor:
            if (end) {
              done = true;
            } else if (!IsAsciiWhitespace(c)) {
              state = kInDescriptor;
              start = p;
              continue;  // reconsume
            }
            break;
        }
        if (!done) ++p;
      }
    }
    if (DescriptorsValid(descriptors)) urls->emplace_back(url);
  }
}

}  // namespace zcrawl::fetcher

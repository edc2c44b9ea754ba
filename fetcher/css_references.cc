#include "fetcher/css_references.h"

#include <cstdint>

#include "common/ascii.h"
#include "common/utf8.h"

namespace zcrawl::fetcher {
namespace {

// The input stream's preprocessing, applied as bytes are read: CR, CR LF
// and FF are newlines (LF), and NUL reads as U+FFFD.
bool IsNewline(char c) { return c == '\n' || c == '\r' || c == '\f'; }
bool IsWhitespace(char c) { return IsNewline(c) || c == '\t' || c == ' '; }
bool IsHex(char c) { return IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsNameStart(char c) { return IsAsciiAlpha(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }
bool IsName(char c) { return IsNameStart(c) || IsAsciiDigit(c) || c == '-'; }
bool IsNonPrintable(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u <= 0x08 || u == 0x0B || (u >= 0x0E && u <= 0x1F) || u == 0x7F;
}

int HexValue(char c) {
  if (IsAsciiDigit(c)) return c - '0';
  return ToLowerAscii(c) - 'a' + 10;
}

class Tokenizer {
 public:
  Tokenizer(std::string_view css, std::vector<CssReference>* out) : s_(css), out_(out) {}

  void Run() {
    while (p_ < s_.size()) Token();
  }

 private:
  char At(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  bool AtEnd(size_t i) const { return i >= s_.size(); }

  // "Two code points are a valid escape": a backslash not before a newline.
  bool ValidEscape(size_t i) const { return At(i) == '\\' && !(i + 1 < s_.size() && IsNewline(s_[i + 1])); }

  bool StartsIdent(size_t i) const {
    if (AtEnd(i)) return false;
    const char c = s_[i];
    if (c == '-') return IsNameStart(At(i + 1)) || At(i + 1) == '-' || ValidEscape(i + 1);
    if (c == '\\') return ValidEscape(i);
    return IsNameStart(c);
  }

  bool StartsNumber(size_t i) const {
    const char c = At(i);
    if (c == '+' || c == '-') return IsAsciiDigit(At(i + 1)) || (At(i + 1) == '.' && IsAsciiDigit(At(i + 2)));
    if (c == '.') return IsAsciiDigit(At(i + 1));
    return !AtEnd(i) && IsAsciiDigit(c);
  }

  // Appends one byte of input (a NUL as U+FFFD).
  void Take(std::string* out) {
    if (s_[p_] == '\0') {
      out->append("\xEF\xBF\xBD");
    } else {
      out->push_back(s_[p_]);
    }
    ++p_;
  }

  // After a backslash (p_ just past it): the escaped code point.
  void ConsumeEscape(std::string* out) {
    if (AtEnd(p_)) {
      out->append("\xEF\xBF\xBD");
      return;
    }
    if (IsHex(s_[p_])) {
      uint32_t value = 0;
      for (int digits = 0; digits < 6 && p_ < s_.size() && IsHex(s_[p_]); ++digits) value = value * 16 + HexValue(s_[p_++]);
      if (p_ < s_.size() && IsWhitespace(s_[p_])) {
        const bool crlf = s_[p_] == '\r' && At(p_ + 1) == '\n';
        p_ += crlf ? 2 : 1;
      }
      if (value == 0 || (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) value = 0xFFFD;
      AppendUtf8CodePoint(static_cast<char32_t>(value), out);
      return;
    }
    // Any other code point stands for itself: all of its UTF-8 bytes.
    Take(out);
    while (p_ < s_.size() && (static_cast<unsigned char>(s_[p_]) & 0xC0) == 0x80) out->push_back(s_[p_++]);
  }

  void ConsumeName(std::string* out) {
    while (p_ < s_.size()) {
      if (IsName(s_[p_])) {
        Take(out);
      } else if (ValidEscape(p_)) {
        ++p_;
        ConsumeEscape(out);
      } else {
        break;
      }
    }
  }

  void SkipWhitespace() {
    while (p_ < s_.size() && IsWhitespace(s_[p_])) ++p_;
  }

  // From the opening quote; false for a bad string (an unescaped newline,
  // which is left unconsumed).
  bool ConsumeString(std::string* out) {
    const char quote = s_[p_++];
    while (p_ < s_.size()) {
      const char c = s_[p_];
      if (c == quote) {
        ++p_;
        return true;
      }
      if (IsNewline(c)) return false;
      if (c == '\\') {
        ++p_;
        if (AtEnd(p_)) return true;
        if (IsNewline(s_[p_])) {  // a line continuation
          p_ += (s_[p_] == '\r' && At(p_ + 1) == '\n') ? 2 : 1;
          continue;
        }
        ConsumeEscape(out);
        continue;
      }
      Take(out);
    }
    return true;  // the end of the input closes it (a parse error, not a bad string)
  }

  // After "url(" (not followed by a quote): false for a bad url, whose
  // remnants are consumed.
  bool ConsumeUrl(std::string* out) {
    SkipWhitespace();
    while (true) {
      if (AtEnd(p_)) return true;
      const char c = s_[p_];
      if (c == ')') {
        ++p_;
        return true;
      }
      if (IsWhitespace(c)) {
        SkipWhitespace();
        if (AtEnd(p_)) return true;
        if (s_[p_] == ')') {
          ++p_;
          return true;
        }
        ConsumeBadUrlRemnants();
        return false;
      }
      if (c == '"' || c == '\'' || c == '(' || IsNonPrintable(c)) {
        ConsumeBadUrlRemnants();
        return false;
      }
      if (c == '\\') {
        if (!ValidEscape(p_)) {
          ConsumeBadUrlRemnants();
          return false;
        }
        ++p_;
        ConsumeEscape(out);
        continue;
      }
      Take(out);
    }
  }

  void ConsumeBadUrlRemnants() {
    std::string ignored;
    while (p_ < s_.size()) {
      if (s_[p_] == ')') {
        ++p_;
        return;
      }
      if (ValidEscape(p_)) {
        ++p_;
        ConsumeEscape(&ignored);
        continue;
      }
      ++p_;
    }
  }

  void Emit(std::string url, bool import) {
    if (!url.empty()) out_->push_back(CssReference{std::move(url), import});
  }

  void ConsumeNumeric() {
    if (s_[p_] == '+' || s_[p_] == '-') ++p_;
    while (IsAsciiDigit(At(p_))) ++p_;
    if (At(p_) == '.' && IsAsciiDigit(At(p_ + 1))) {
      p_ += 2;
      while (IsAsciiDigit(At(p_))) ++p_;
    }
    if ((At(p_) == 'e' || At(p_) == 'E') &&
        (IsAsciiDigit(At(p_ + 1)) || ((At(p_ + 1) == '+' || At(p_ + 1) == '-') && IsAsciiDigit(At(p_ + 2))))) {
      p_ += 2;
      while (IsAsciiDigit(At(p_))) ++p_;
    }
    if (StartsIdent(p_)) {
      std::string unit;
      ConsumeName(&unit);
    } else if (At(p_) == '%') {
      ++p_;
    }
  }

  // One token. `import_` and `url_function_` carry what an at-keyword
  // "import" or a function "url(" makes of the next significant token.
  void Token() {
    const char c = s_[p_];
    if (IsWhitespace(c)) {
      SkipWhitespace();
      return;
    }
    if (c == '/' && At(p_ + 1) == '*') {
      const size_t end = s_.find("*/", p_ + 2);
      p_ = end == std::string_view::npos ? s_.size() : end + 2;
      return;
    }
    const bool import = import_;
    const bool url_function = url_function_;
    import_ = false;
    url_function_ = false;
    if (c == '"' || c == '\'') {
      std::string value;
      if (ConsumeString(&value) && (import || url_function)) Emit(std::move(value), import);
      return;
    }
    if (StartsNumber(p_)) {
      ConsumeNumeric();
      return;
    }
    if (c == '-' && At(p_ + 1) == '-' && At(p_ + 2) == '>') {  // CDC
      p_ += 3;
      return;
    }
    if (StartsIdent(p_)) {
      std::string name;
      ConsumeName(&name);
      if (At(p_) != '(') return;
      ++p_;
      if (!EqualsIgnoreCaseAscii(name, "url")) return;
      // "url(" then a quote (after whitespace) is a function whose string
      // is the URL; anything else is a url token.
      size_t q = p_;
      while (q < s_.size() && IsWhitespace(s_[q])) ++q;
      if (At(q) == '"' || At(q) == '\'') {
        p_ = q;
        url_function_ = true;
        import_ = import;
        return;
      }
      std::string url;
      if (ConsumeUrl(&url)) Emit(std::move(url), import);
      return;
    }
    if (c == '@' && StartsIdent(p_ + 1)) {
      ++p_;
      std::string name;
      ConsumeName(&name);
      import_ = EqualsIgnoreCaseAscii(name, "import");
      return;
    }
    if (c == '#' && (IsName(At(p_ + 1)) || ValidEscape(p_ + 1))) {
      ++p_;
      std::string name;
      ConsumeName(&name);
      return;
    }
    ++p_;  // a delimiter, bracket, colon, ... (or a backslash before a newline)
  }

  std::string_view s_;
  std::vector<CssReference>* out_;
  size_t p_ = 0;
  bool import_ = false;
  bool url_function_ = false;
};

}  // namespace

void FindCssReferences(std::string_view css, std::vector<CssReference>* out) { Tokenizer(css, out).Run(); }

}  // namespace zcrawl::fetcher

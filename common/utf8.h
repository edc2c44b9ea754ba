// UTF-8 as the Encoding Standard reads it: validation, repair and code point
// encoding/decoding, one definition for the URL parser, the charset decoder
// and everything else that checks or repairs UTF-8.
//
// Invalid input is measured in "maximal subparts" (the Encoding Standard's
// and Unicode's unit of one U+FFFD): an invalid lead byte is one unit; a
// valid lead followed by too few or wrong continuation bytes is the lead plus
// the continuation bytes that were right. Surrogates (U+D800-DFFF) and code
// points above U+10FFFF are invalid. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zcrawl {

enum class Utf8Sequence { kValid, kInvalid, kTruncated };

// Looks at the sequence starting at text[pos] (a byte >= 0x80). Sets
// *length to the bytes of a valid sequence, or of the maximal invalid
// subpart (at least 1). kTruncated: valid so far, cut off by the end.
Utf8Sequence ExamineUtf8Sequence(std::string_view text, size_t pos, size_t* length);

// Offset of the first byte that starts an invalid (or truncated) sequence
// or, when `nul_is_bad`, is NUL; npos if none. ASCII runs go 8 bytes a step.
size_t FindUtf8Problem(std::string_view text, bool nul_is_bad);

inline bool IsValidUtf8(std::string_view text) {
  return FindUtf8Problem(text, /*nul_is_bad=*/false) == std::string_view::npos;
}

// `text` with each invalid unit (and NUL when `replace_nul`) replaced by
// U+FFFD; the string itself, moved, when there is nothing to replace.
std::string RepairUtf8(std::string text, bool replace_nul);

// The code point of the valid sequence at text[pos]; *length gets its bytes.
char32_t DecodeUtf8CodePoint(std::string_view text, size_t pos, size_t* length);

// Appends the UTF-8 form of `code_point` (at most U+10FFFF).
void AppendUtf8CodePoint(char32_t code_point, std::string* out);

}  // namespace zcrawl

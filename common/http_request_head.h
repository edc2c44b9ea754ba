// ParseHttpRequestHead: reads the head of an HTTP/1.x request (request line,
// header fields, the empty line) as our small servers receive it: the
// metrics endpoint (common/metrics_server.h) reads bytes from anyone who
// connects, so the bytes are untrusted and arrive in pieces.
//
// Grammar (RFC 9112 sections 2-5), strict where it costs nothing:
//   head         = *( CRLF ) request-line *( field-line CRLF ) CRLF
//   request-line = method SP request-target SP "HTTP/" DIGIT "." DIGIT CRLF
//   method       = token; request-target = 1*( %x21-7E )
//   field-line   = token ":" *( any byte but CR, LF and NUL )
// A bare LF ends a line as CRLF does (RFC 9112 section 2.2 allows it); a CR
// not followed by LF, a NUL, whitespace before a field's colon and obsolete
// line folding are malformed (a server must refuse them: they are how
// requests are smuggled past a proxy).
//
// Streaming: the verdict on a prefix never contradicts the verdict on the
// whole. A prefix of a complete head is kIncomplete; a prefix found
// malformed or too large stays so whatever follows (fuzz/http_request_fuzz.cc
// checks both). Pure function, safe from any thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace zcrawl {

struct HttpRequestHead {
  enum class Verdict {
    kIncomplete,  // a valid prefix: read more
    kMalformed,   // answer 400
    kTooLarge,    // the head is longer than allowed: answer 431
    kComplete,    // fields below are set
  };
  Verdict verdict = Verdict::kIncomplete;
  // Views into the parsed bytes, set when kComplete.
  std::string_view method;
  std::string_view target;
  int version_major = 0;
  int version_minor = 0;
  // Bytes the head took, the final empty line included (kComplete).
  size_t head_size = 0;
};

// Parses the head at the start of `bytes`; a head of more than
// `max_head_bytes` bytes (the empty line included) is kTooLarge.
HttpRequestHead ParseHttpRequestHead(std::string_view bytes, size_t max_head_bytes);

// True for RFC 9110's tchar: the bytes of a method or a field name.
bool IsHttpTokenChar(char c);

}  // namespace zcrawl

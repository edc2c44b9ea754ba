#include "common/warc_http_head.h"

#include <cstring>

#include "common/ascii.h"

namespace zcrawl {
namespace {

std::string_view ReasonPhrase(uint32_t status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

// RFC 9110 token characters: what a header name may contain.
bool IsHeaderName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F) return false;
    if (std::strchr("\"(),/:;<=>?@[\\]{}", c) != nullptr) return false;
  }
  return true;
}

}  // namespace

void AppendHeaderValue(std::string& out, std::string_view value) {
  // Copied whole, then fixed in place by a loop the compiler vectorises.
  const size_t start = out.size();
  out.append(value);
  for (size_t i = start; i < out.size(); ++i) {
    const char c = out[i];
    if (c == '\r' || c == '\n' || c == '\0') out[i] = ' ';
  }
}

std::string WarcHttpResponseHead(const v1::Page& page, size_t body_size) {
  std::string head;
  head.reserve(64 * (page.headers_size() + 2));
  AppendHeaderValue(head, page.http_version().empty() ? "HTTP/1.1" : page.http_version());
  head += ' ';
  head += std::to_string(page.http_status());
  head += ' ';
  head += ReasonPhrase(page.http_status());
  head += "\r\n";
  for (const v1::Header& header : page.headers()) {
    std::string_view name = header.name();
    if (!IsHeaderName(name)) continue;  // includes HTTP/2 pseudo-headers
    if (EqualsIgnoreCaseAscii(name, "Content-Length") ||
        EqualsIgnoreCaseAscii(name, "Transfer-Encoding")) {
      continue;
    }
    if (EqualsIgnoreCaseAscii(name, "Content-Encoding")) name = "X-Zcrawl-Orig-Content-Encoding";
    head += name;
    head += ": ";
    AppendHeaderValue(head, header.value());
    head += "\r\n";
  }
  head += "Content-Length: ";
  head += std::to_string(body_size);
  head += "\r\n\r\n";
  return head;
}

}  // namespace zcrawl

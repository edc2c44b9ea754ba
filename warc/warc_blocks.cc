#include "warc/warc_blocks.h"

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

struct HostAndPath {
  std::string host;  // with ":port" when the URL has one
  std::string path;  // path and query, "/" at least
};

HostAndPath SplitUrl(std::string_view url) {
  HostAndPath parts;
  const size_t scheme_end = url.find("://");
  std::string_view rest = scheme_end == std::string_view::npos ? url : url.substr(scheme_end + 3);
  const size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  parts.host = std::string(authority);
  std::string_view path =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  path = path.substr(0, path.find('#'));
  if (path.empty() || path.front() != '/') parts.path = "/";
  parts.path += path;
  return parts;
}

}  // namespace

std::string_view WarcTargetUri(const v1::Page& page) {
  return page.final_url().empty() ? page.url() : page.final_url();
}

std::string WarcRequestBlock(const v1::Page& page, std::string_view target_uri) {
  if (!page.request_headers().empty()) {
    // As sent, with bare LF line ends made CRLF and the final blank line
    // added when missing.
    std::string block;
    block.reserve(page.request_headers().size() + 8);
    char previous = '\0';
    for (char c : page.request_headers()) {
      if (c == '\n' && previous != '\r') block.push_back('\r');
      block.push_back(c);
      previous = c;
    }
    if (!block.ends_with("\r\n\r\n")) {
      while (!block.empty() && (block.back() == '\r' || block.back() == '\n')) block.pop_back();
      block += "\r\n\r\n";
    }
    return block;
  }
  const HostAndPath parts = SplitUrl(target_uri);
  std::string block = "GET ";
  AppendHeaderValue(block, parts.path);
  block += " HTTP/1.1\r\nHost: ";
  AppendHeaderValue(block, parts.host);
  block += "\r\n\r\n";
  return block;
}

std::string WarcMetadataBlock(const v1::Page& page) {
  size_t bytes = 0;
  for (const v1::Link& link : page.links()) bytes += link.url().size() + 11;
  std::string block;
  block.reserve(bytes);
  for (const v1::Link& link : page.links()) {
    block += link.embed() ? "embed: " : "outlink: ";
    AppendHeaderValue(block, link.url());
    block += "\r\n";
  }
  return block;
}

void AppendHeaderValue(std::string& out, std::string_view value) {
  // Copied whole, then fixed in place by a loop the compiler vectorises.
  const size_t start = out.size();
  out.append(value);
  for (size_t i = start; i < out.size(); ++i) {
    const char c = out[i];
    if (c == '\r' || c == '\n' || c == '\0') out[i] = ' ';
  }
}

bool StoredContentType(const v1::Page& page, std::string* value) {
  for (const v1::Header& header : page.headers()) {
    if (!EqualsIgnoreCaseAscii(header.name(), "Content-Type")) continue;
    value->clear();
    AppendHeaderValue(*value, header.value());
    return true;
  }
  return false;
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

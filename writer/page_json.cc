#include "writer/page_json.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/ascii.h"
#include "common/encoding.h"
#include "common/json_writer.h"
#include "writer/page_validators.h"

namespace zcrawl::writer {

std::string PageJson(const v1::Page& page, const std::string* body) {
  JsonWriter json;
  json.BeginObject();
  json.Key("url").String(page.url());
  // A continuous crawl's later rounds of a URL: the key the writer knows
  // them by on a restart (jsonl_keys.h).
  if (!page.dedup_key().empty() && page.dedup_key() != page.url()) json.Key("key").String(page.dedup_key());
  json.Key("final_url").String(page.final_url());
  json.Key("status").Uint(page.http_status());

  // Repeated names (any case) share one member, values joined with ", ".
  std::vector<std::pair<std::string_view, std::string>> headers;
  std::unordered_map<std::string, size_t> index_by_name;
  for (const v1::Header& header : page.headers()) {
    const auto [it, inserted] = index_by_name.emplace(AsciiLower(header.name()), headers.size());
    if (inserted) {
      headers.emplace_back(header.name(), header.value());
    } else {
      std::string& value = headers[it->second].second;
      value += ", ";
      value += header.value();
    }
  }
  json.Key("headers").BeginObject();
  for (const auto& [name, value] : headers) json.Key(name).String(value);
  json.EndObject();

  json.Key("content_type").String(page.content_type());
  json.Key("charset").String(page.charset());
  json.Key("fetched_at");
  if (page.fetched_at_ms() != 0) {
    json.String(FormatRfc3339Millis(page.fetched_at_ms()));
  } else {
    json.Null();
  }
  json.Key("depth").Uint(page.depth());
  json.Key("title").String(page.title());
  json.Key("text").String(page.text());
  json.Key("outlinks").BeginArray();
  bool embeds = false;
  for (const v1::Link& link : page.links()) {
    if (link.embed()) {
      embeds = true;
    } else {
      json.String(link.url());
    }
  }
  json.EndArray();
  if (embeds) {  // only with page requisites on: the key is absent otherwise
    json.Key("embeds").BeginArray();
    for (const v1::Link& link : page.links()) {
      if (link.embed()) json.String(link.url());
    }
    json.EndArray();
  }
  if (IsNotModifiedAnswer(page)) {  // a recrawl's 304: the earlier capture stands
    json.Key("unchanged").Bool(true);
    json.Key("previous_fetched_at_ms").Int(page.not_modified_since().fetched_at_ms());
  }
  json.Key("redirects").BeginArray();
  for (const v1::Redirect& redirect : page.redirects()) {
    json.BeginObject();
    json.Key("from").String(redirect.from_url());
    json.Key("status").Uint(redirect.status_code());
    json.Key("location").String(redirect.location());
    json.EndObject();
  }
  json.EndArray();
  if (body != nullptr) {
    json.Key("body").String(Base64Encode(*body));
    if (page.body_truncated()) json.Key("body_truncated").Bool(true);
  }
  json.EndObject();
  return json.Take();
}

}  // namespace zcrawl::writer

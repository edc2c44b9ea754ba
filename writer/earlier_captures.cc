#include "writer/earlier_captures.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "common/ascii.h"
#include "common/encoding.h"
#include "common/page_key.h"
#include "warc/cdxj.h"
#include "writer/warc_index.h"

namespace zcrawl::writer {
namespace {

std::string StringField(const nlohmann::json& json, const char* key) {
  const auto it = json.find(key);
  return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t IntField(const nlohmann::json& json, const char* key) {
  const auto it = json.find(key);
  return it != json.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

uint32_t DepthField(const nlohmann::json& json) {
  const auto it = json.find("depth");
  return it != json.end() && it->is_number_unsigned() ? it->get<uint32_t>() : 0;
}

// Reads `path` line by line as JSON objects; false from `take` counts a bad line.
Status ForEachJsonLine(const std::string& path, EarlierCaptureCounts& counts,
                       const std::function<bool(const nlohmann::json&)>& take) {
  std::ifstream in(path);
  if (!in) return UnavailableError("cannot read " + path);
  ++counts.indexes;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded() || !json.is_object() || !take(json)) {
      ++counts.bad_lines;
      continue;
    }
    ++counts.captures;
  }
  if (in.bad()) return UnavailableError("cannot read " + path);
  return Status::Ok();
}

}  // namespace

Result<EarlierCaptureCounts> ForEachEarlierCapture(const std::string& dir,
                                                   const std::function<void(const EarlierCapture&)>& visit) {
  EarlierCaptureCounts counts;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return NotFoundError(dir + " is not a folder");
  // files: index.jsonl
  const std::string files_index = dir + "/index.jsonl";
  if (std::filesystem::exists(files_index, ec)) {
    Status s = ForEachJsonLine(files_index, counts, [&](const nlohmann::json& json) {
      EarlierCapture capture;
      capture.url = StringField(json, "url");
      if (capture.url.empty()) return false;
      capture.depth = DepthField(json);
      capture.validators.set_etag(StringField(json, "etag"));
      capture.validators.set_last_modified(StringField(json, "last_modified"));
      const bool unchanged = json.value("unchanged", false);
      capture.validators.set_fetched_at_ms(IntField(json, unchanged ? "previous_fetched_at_ms" : "fetched_at_ms"));
      visit(capture);
      return true;
    });
    if (!s.ok()) return s;
  }
  // jsonl: pages.jsonl
  const std::string pages = dir + "/pages.jsonl";
  if (std::filesystem::exists(pages, ec)) {
    Status s = ForEachJsonLine(pages, counts, [&](const nlohmann::json& json) {
      EarlierCapture capture;
      capture.url = StringField(json, "url");
      if (capture.url.empty()) return false;
      capture.depth = DepthField(json);
      if (const auto headers = json.find("headers"); headers != json.end() && headers->is_object()) {
        for (const auto& [name, value] : headers->items()) {
          if (!value.is_string()) continue;
          if (EqualsIgnoreCaseAscii(name, "etag")) capture.validators.set_etag(value.get<std::string>());
          if (EqualsIgnoreCaseAscii(name, "last-modified")) capture.validators.set_last_modified(value.get<std::string>());
        }
      }
      if (json.value("unchanged", false)) {
        capture.validators.set_fetched_at_ms(IntField(json, "previous_fetched_at_ms"));
      } else if (auto ms = ParseRfc3339Millis(StringField(json, "fetched_at"))) {
        capture.validators.set_fetched_at_ms(*ms);
      }
      visit(capture);
      return true;
    });
    if (!s.ok()) return s;
  }
  // warc: every PREFIX-index.jsonl sidecar
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with("-index.jsonl")) continue;
    ++counts.indexes;
    Status s = ForEachWarcIndexLine(entry.path().string(), dir, 0, [&](const WarcIndexLine& line) {
      EarlierCapture capture;
      capture.url = std::string(UrlOfPageKey(line.key));
      capture.depth = line.depth < 0 ? 0 : static_cast<uint32_t>(line.depth);
      capture.validators.set_etag(line.validators.etag);
      capture.validators.set_last_modified(line.validators.last_modified);
      // "SURT TIMESTAMP {json}": the capture's time and payload digest.
      const size_t first = line.cdxj.find(' ');
      const size_t second = first == std::string::npos ? first : line.cdxj.find(' ', first + 1);
      if (second != std::string::npos) {
        // The sidecar's own time has the WARC-Date's milliseconds; older
        // lines have only the CDXJ's seconds.
        if (line.validators.fetched_at_ms != 0) {
          capture.validators.set_fetched_at_ms(line.validators.fetched_at_ms);
        } else if (auto ms = MsOfCdxjTimestamp(std::string_view(line.cdxj).substr(first + 1, second - first - 1))) {
          capture.validators.set_fetched_at_ms(*ms);
        }
        const auto json = nlohmann::json::parse(line.cdxj.substr(second + 1), nullptr, false);
        if (!json.is_discarded() && json.is_object()) {
          const std::string digest = StringField(json, "digest");
          if (!digest.empty()) capture.validators.set_payload_digest("sha1:" + digest);
        }
      }
      ++counts.captures;
      visit(capture);
    });
    if (!s.ok()) return s;
  }
  if (ec) return UnavailableError("cannot list " + dir + ": " + ec.message());
  return counts;
}

}  // namespace zcrawl::writer

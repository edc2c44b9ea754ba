#include "launcher/recrawl.h"

#include <filesystem>
#include <fstream>
#include <unordered_set>

#include "common/json_writer.h"
#include "writer/earlier_captures.h"

namespace zcrawl::launcher {

Status CheckRecrawlFolders(const std::string& old_dir, const std::string& out_dir) {
  std::error_code ec;
  const auto old_path = std::filesystem::weakly_canonical(old_dir, ec);
  const auto out_path = std::filesystem::weakly_canonical(out_dir, ec);
  if (old_path == out_path) {
    return InvalidArgumentError("--recrawl " + old_dir +
                                " is the output folder: a recrawl writes a new one (give --out NEW)");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> RecrawlSeeds(const std::string& old_dir) {
  std::vector<std::string> seeds;
  std::unordered_set<std::string> seen;
  auto counts = writer::ForEachEarlierCapture(old_dir, [&](const writer::EarlierCapture& capture) {
    if (capture.depth == 0 && seen.insert(capture.url).second) seeds.push_back(capture.url);
  });
  if (!counts.ok()) return counts.status();
  if (counts->indexes == 0) {
    return NotFoundError(old_dir + " holds no crawl index (index.jsonl, pages.jsonl or a WARC sidecar)");
  }
  return seeds;
}

Result<uint64_t> WriteRecrawlList(const std::string& old_dir, const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return UnavailableError("cannot write " + path);
  auto counts = writer::ForEachEarlierCapture(old_dir, [&](const writer::EarlierCapture& capture) {
    JsonWriter json;
    json.BeginObject().Key("url").String(capture.url).Key("depth").Uint(capture.depth);
    const auto& v = capture.validators;
    if (!v.etag().empty()) json.Key("etag").String(v.etag());
    if (!v.last_modified().empty()) json.Key("last_modified").String(v.last_modified());
    if (v.fetched_at_ms() != 0) json.Key("fetched_at_ms").Int(v.fetched_at_ms());
    if (!v.payload_digest().empty()) json.Key("payload_digest").String(v.payload_digest());
    json.EndObject();
    out << json.str() << '\n';
  });
  if (!counts.ok()) return counts.status();
  if (!out.flush()) return UnavailableError("cannot write " + path);
  return counts->captures;
}

std::vector<std::string> RecrawlDedupIndexes(const std::string& old_dir) {
  std::vector<std::string> indexes;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(old_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".cdxj")) continue;
    const std::string base = name.substr(0, name.size() - 5);
    if (std::filesystem::exists(std::filesystem::path(old_dir) / (base + ".warc.gz"), ec)) {
      indexes.push_back(entry.path().string());
    }
  }
  return indexes;
}

}  // namespace zcrawl::launcher

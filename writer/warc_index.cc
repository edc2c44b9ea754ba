#include "writer/warc_index.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/json_writer.h"
#include "writer/file_io.h"
#include "writer/durable_file.h"
#include "writer/jsonl_keys.h"

namespace zcrawl::writer {

WarcIndex::WarcIndex(std::string dir, std::string_view prefix)
    : dir_(std::move(dir)),
      path_((std::filesystem::path(dir_) / (std::string(prefix) + std::string(kWarcIndexSuffix))).string()) {}

WarcIndex::~WarcIndex() { Close(); }

Status WarcIndex::Open() { return CutTornLine(path_); }

void WarcIndex::Add(std::string_view key, std::string_view file, uint64_t offset, uint64_t length,
                    std::string_view cdxj, uint32_t depth, std::string_view title,
                    const PageValidators& validators) {
  pending_ += "{\"url\":";
  AppendJsonString(pending_, key);
  pending_ += ",\"file\":";
  AppendJsonString(pending_, file);
  pending_ += ",\"offset\":";
  pending_ += std::to_string(offset);
  pending_ += ",\"length\":";
  pending_ += std::to_string(length);
  pending_ += ",\"cdxj\":";
  AppendJsonString(pending_, cdxj);
  pending_ += ",\"depth\":";
  pending_ += std::to_string(depth);
  pending_ += ",\"title\":";
  AppendJsonString(pending_, title);
  if (!validators.etag.empty()) {
    pending_ += ",\"etag\":";
    AppendJsonString(pending_, validators.etag);
  }
  if (!validators.last_modified.empty()) {
    pending_ += ",\"last_modified\":";
    AppendJsonString(pending_, validators.last_modified);
  }
  if (validators.fetched_at_ms != 0) {
    pending_ += ",\"fetched_at_ms\":";
    pending_ += std::to_string(validators.fetched_at_ms);
  }
  pending_ += "}\n";
}

void WarcIndex::DropPending() { pending_.clear(); }

Status WarcIndex::Flush(bool* created) {
  Seal();
  return FlushSealed(created);
}

void WarcIndex::Seal() {
  // A failed FlushSealed dropped its lines; anything still sealed is
  // written first.
  sealed_ += pending_;
  pending_.clear();
}

Status WarcIndex::FlushSealed(bool* created) {
  *created = false;
  if (sealed_.empty()) return Status::Ok();
  if (!file_.is_open()) {
    if (Status s = file_.Open(path_, DurableFile::Tail::kKeep); !s.ok()) return s;
    *created = file_.created();
  }
  Status s = file_.Append(sealed_);
  if (s.ok()) s = file_.Sync();
  if (!s.ok()) {
    AbandonWrites();
    return s;
  }
  sealed_.clear();
  return Status::Ok();
}

void WarcIndex::Close() { file_.Close(); }

void WarcIndex::AbandonWrites() {
  sealed_.clear();
  // Best effort: if this fails, Open in the next run cuts the torn line.
  file_.CutToDurable().IgnoreError();
  file_.Close();
}

Status WarcIndex::ForEachKey(const std::function<void(const std::string&)>& visit) const {
  return ForEachWarcIndexLine(path_, dir_, 0, [&](const WarcIndexLine& line) { visit(line.key); });
}

Status ForEachWarcIndexLine(const std::string& path, const std::string& dir, uint64_t from,
                            const std::function<void(const WarcIndexLine&)>& visit) {
  std::ifstream in(path);
  if (!in) return Status::Ok();
  if (from > 0) in.seekg(static_cast<std::streamoff>(from));
  std::map<std::string, uint64_t> file_sizes;  // 0 when missing
  std::string text;
  WarcIndexLine line;
  while (std::getline(in, text)) {
    const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) continue;
    const auto url = json.find("url");
    const auto file = json.find("file");
    const auto offset = json.find("offset");
    const auto length = json.find("length");
    const auto cdxj = json.find("cdxj");
    if (url == json.end() || file == json.end() || offset == json.end() || length == json.end() ||
        !url->is_string() || !file->is_string() || !offset->is_number_unsigned() ||
        !length->is_number_unsigned() || (cdxj != json.end() && !cdxj->is_string())) {
      continue;
    }
    line.file = file->get<std::string>();
    if (line.file.empty() || line.file.find('/') != std::string::npos) continue;
    auto [it, inserted] = file_sizes.try_emplace(line.file, 0);
    if (inserted) {
      std::error_code ec;
      const uintmax_t size = std::filesystem::file_size(std::filesystem::path(dir) / line.file, ec);
      it->second = ec ? 0 : static_cast<uint64_t>(size);
    }
    line.offset = offset->get<uint64_t>();
    line.length = length->get<uint64_t>();
    if (line.length == 0 || line.offset > it->second || line.length > it->second - line.offset) continue;
    line.key = url->get<std::string>();
    line.cdxj = cdxj == json.end() ? std::string() : cdxj->get<std::string>();
    const auto depth = json.find("depth");
    line.depth = depth != json.end() && depth->is_number_unsigned() ? depth->get<int64_t>() : -1;
    const auto title = json.find("title");
    line.title = title != json.end() && title->is_string() ? title->get<std::string>() : std::string();
    const auto etag = json.find("etag");
    line.validators.etag = etag != json.end() && etag->is_string() ? etag->get<std::string>() : std::string();
    const auto last_modified = json.find("last_modified");
    line.validators.last_modified =
        last_modified != json.end() && last_modified->is_string() ? last_modified->get<std::string>() : std::string();
    const auto fetched_at = json.find("fetched_at_ms");
    line.validators.fetched_at_ms =
        fetched_at != json.end() && fetched_at->is_number_integer() ? fetched_at->get<int64_t>() : 0;
    visit(line);
  }
  if (in.bad()) return UnavailableError("read " + path);
  return Status::Ok();
}

}  // namespace zcrawl::writer

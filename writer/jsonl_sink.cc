#include "writer/jsonl_sink.h"

#include "writer/jsonl_keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "writer/durable_file.h"
#include "writer/file_io.h"
#include "writer/page_json.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

}  // namespace

JsonlSink::JsonlSink(SinkOptions options)
    : options_(std::move(options)),
      path_((fs::path(options_.out_dir) / kJsonlFileName).string()) {}

JsonlSink::~JsonlSink() { Close().IgnoreError(); }

Status JsonlSink::Open() {
  if (open_) return Status::Ok();
  if (Status s = CreateFolderDurably(options_.out_dir); !s.ok()) return s;
  Status s = OpenFile();
  if (!s.ok()) return s;
  buffer_.reserve(kJsonlWriteChunkBytes + (kJsonlWriteChunkBytes >> 2));
  open_ = true;
  return Status::Ok();
}

Status JsonlSink::OpenFile() {
  if (Status s = file_.Open(path_, DurableFile::Tail::kCutTornLine); !s.ok()) return s;
  if (file_.created()) dir_sync_needed_ = true;
  return Status::Ok();
}

Status JsonlSink::Append(const v1::Page& page, PagePayload&& payload) {
  if (!open_) return InternalError("JsonlSink::Write called while not open");
  if (!file_.is_open()) {
    Status s = OpenFile();
    if (!s.ok()) return s;
  }
  buffer_ += PageJson(page, options_.jsonl_body ? &payload.body : nullptr);
  buffer_.push_back('\n');
  if (buffer_.size() >= kJsonlWriteChunkBytes) {
    Status s = WriteBuffer();
    if (!s.ok()) {
      AbandonWrites();
      return s;
    }
  }
  return Status::Ok();
}

Status JsonlSink::Flush() {
  if (!open_) return InternalError("JsonlSink::Flush called while not open");
  if (file_.is_open()) {
    Status s = WriteBuffer();
    if (s.ok()) s = file_.Sync();
    if (!s.ok()) {
      AbandonWrites();
      return s;
    }
  }
  if (dir_sync_needed_) {
    Status s = FsyncDir(options_.out_dir);
    if (!s.ok()) return s;
    dir_sync_needed_ = false;
  }
  return Status::Ok();
}

Status JsonlSink::ForEachStoredKey(const std::function<void(const std::string&)>& visit) {
  return ForEachJsonlKey(path_, visit);
}

Status JsonlSink::Close() {
  if (!open_) return Status::Ok();
  Status s = Flush();
  file_.Close();
  open_ = false;
  return s;
}

Status JsonlSink::WriteBuffer() {
  Status s = file_.Append(buffer_);
  if (s.ok()) buffer_.clear();
  return s;  // on failure the caller abandons the writes
}

void JsonlSink::AbandonWrites() {
  buffer_.clear();
  // If the cut fails too, the file is closed and the next Write's OpenFile
  // cuts the torn line instead.
  if (Status s = file_.CutToDurable(); !s.ok()) file_.Close();
  file_.Close();  // reopened by the next Write
}

}  // namespace zcrawl::writer

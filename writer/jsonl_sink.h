// JsonlSink: stores pages as JSON lines in out_dir/pages.jsonl, one object
// per line, appended across runs. Easy to grep, load into pandas or jq.
//
// One line per page, as page_json.h describes.
//
// Durability: Write buffers in memory and writes in chunks of
// kJsonlWriteChunkBytes; Flush writes the rest and fsyncs the file (and the
// folder when this sink created the file). After a failed write or fsync the
// sink cuts the file back to its last durable size, so a torn line never
// stays behind, and the unacknowledged pages come again. Open also cuts a
// torn last line left by a crash (it was never acknowledged). One sink per
// file: two processes appending to one pages.jsonl are not supported.
//
// Thread-safety: none; the writer's sink thread owns the sink (sink.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "writer/durable_file.h"
#include "writer/sink.h"
#include "writer/sink_options.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

inline constexpr std::string_view kJsonlFileName = "pages.jsonl";
// Write() hands buffered bytes to the kernel once this many are pending.
inline constexpr size_t kJsonlWriteChunkBytes = 4u << 20;

class JsonlSink : public Sink {
 public:
  explicit JsonlSink(SinkOptions options);
  ~JsonlSink() override;  // Close(), error ignored: call Close to see it
  JsonlSink(const JsonlSink&) = delete;
  JsonlSink& operator=(const JsonlSink&) = delete;

  // Creates out_dir if missing and opens pages.jsonl for appending.
  // Opening an open sink does nothing.
  Status Open() override;
  Status Flush() override;
  Status Close() override;
  std::string_view name() const override { return "jsonl"; }
  SinkNeeds needs() const override { return SinkNeeds{options_.jsonl_body, {}}; }
  // The URLs in pages.jsonl.
  Status ForEachStoredKey(const std::function<void(const std::string&)>& visit) override;

  // out_dir/pages.jsonl.
  const std::string& path() const { return path_; }

 private:
  Status Append(const v1::Page& page, PagePayload&& payload) override;
  // Opens the file, creating it if needed, and cuts a torn last line.
  Status OpenFile();
  Status WriteBuffer();
  // After an I/O error: drops the buffer, cuts the file back to its durable
  // size and closes it; the next Write reopens it.
  void AbandonWrites();

  SinkOptions options_;
  std::string path_;
  bool open_ = false;
  DurableFile file_;              // closed when not open or after an error
  bool dir_sync_needed_ = false;  // we created the file; its entry is not durable yet
  std::string buffer_;            // lines not yet written
};

}  // namespace zcrawl::writer

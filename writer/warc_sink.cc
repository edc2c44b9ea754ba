#include "writer/warc_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/encoding.h"
#include "common/fault_point.h"
#include "common/process_identity.h"
#include "common/sha1.h"
#include "warc/cdxj.h"
#include "writer/file_io.h"
#include "writer/warc_file_cdxj.h"
#include "writer/warc_file_name.h"
#include "writer/warc_recovery.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxCreateAttempts = 10000;
constexpr char kWarcinfoBlock[] =
    "software: zcrawl\r\n"
    "format: WARC File Format 1.1\r\n"
    "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n";

}  // namespace

WarcSink::WarcSink(SinkOptions options, int gzip_level, const Clock& clock, int threads)
    : options_(std::move(options)),
      gzip_level_(gzip_level),
      threads_(threads == kWarcThreadsPerCore ? static_cast<int>(std::thread::hardware_concurrency())
                                              : std::max(threads, 0)),
      gzip_(gzip_level),
      clock_(&clock),
      index_(options_.out_dir, options_.warc_prefix) {}

WarcSink::~WarcSink() { Close().IgnoreError(); }

Status WarcSink::Open() {
  if (open_) return Status::Ok();
  if (Status s = CreateFolderDurably(options_.out_dir); !s.ok()) return s;
  if (::access(options_.out_dir.c_str(), W_OK | X_OK) != 0) {
    return ErrnoStatus("access", options_.out_dir, errno);
  }
  uint64_t next = 0;
  std::error_code ec;
  for (fs::directory_iterator it(options_.out_dir, ec), end; !ec && it != end; it.increment(ec)) {
    uint64_t serial = 0;
    if (ParseWarcOrAsideSerial(it->path().filename().string(), options_.warc_prefix, serial)) {
      next = std::max(next, serial + 1);
    }
  }
  if (ec) return ErrnoStatus("list folder", options_.out_dir, ec.value());
  if (Status s = index_.Open(); !s.ok()) return s;
  // What an earlier run wrote after its last durable index line was never
  // acknowledged and comes again: cut it, so no page is in the files twice.
  WarcRecoveryCounts cut;
  if (Status s = CutWarcFilesToIndex(options_.out_dir, options_.warc_prefix, index_.path(), 0, nullptr, &cut);
      !s.ok()) {
    return s;
  }
  if (cut.changed()) {
    spdlog::warn("warc: cut {} unacknowledged byte(s) from {} file(s) and set {} file(s) with no acknowledged "
                 "page aside (*.unacknowledged); their pages come again",
                 cut.bytes_cut, cut.files_cut, cut.files_set_aside);
  }
  recovered_ = cut;
  // Files an earlier run finished without writing their CDXJ (it stopped
  // in between) get it now, from the durable index lines.
  CdxjFileCounts recovered;
  if (Status s = WriteWarcFileCdxj(options_.out_dir, index_.path(), 0, nullptr, &recovered); !s.ok()) {
    spdlog::warn("cannot write the CDXJ index of earlier WARC files: {}; `./run index` retries", s.message());
  } else if (recovered.files_written > 0) {
    spdlog::info("wrote the CDXJ index of {} WARC file(s) an earlier run left without one", recovered.files_written);
  }
  if (options_.warc_dedup) {
    auto digests = PayloadDigestIndex::Open(
        (fs::path(options_.out_dir) / (options_.warc_prefix + std::string(kDigestIndexSuffix))).string(),
        uint64_t{options_.dedup_memory_mb} << 20);
    if (!digests.ok()) return digests.status();
    digests_ = std::move(*digests);
    for (const std::string& earlier : options_.dedup_indexes) {
      uint64_t loaded = 0;
      uint64_t skipped = 0;
      if (Status s = digests_->LoadCdxj(earlier, &loaded, &skipped); !s.ok()) return s;
      if (loaded > 0 || skipped > 0) {
        spdlog::info("--dedup-index {}: {} payloads known, {} lines skipped", earlier, loaded, skipped);
      }
    }
  }
  std::error_code size_error;
  const uintmax_t index_size = fs::file_size(index_.path(), size_error);
  index_durable_floor_ = size_error ? 0 : static_cast<uint64_t>(index_size);
  next_serial_ = next;
  buffer_.reserve(kWarcWriteChunkBytes + (kWarcWriteChunkBytes >> 2));
  pool_ = std::make_unique<WarcEncodePool>(threads_, gzip_level_);
  window_error_ = Status::Ok();
  open_ = true;
  return Status::Ok();
}

SinkNeeds WarcSink::needs() const {
  SinkNeeds needs;
  needs.wants.set_payload_digest(true);  // the payload digest, without a second pass here
  if (!options_.fetcher_compression || gzip_level_ < 1) return needs;
  needs.body = false;
  needs.wants.set_warc_block_level(static_cast<uint32_t>(std::clamp(gzip_level_, 1, kMaxGzipMemberLevel)));
  return needs;
}

Status WarcSink::Append(const v1::Page& page, PagePayload&& payload) {
  if (!open_) return InternalError("WarcSink::Write called while not open");
  if (!window_error_.ok()) return window_error_;
  WarcPageParts parts = WarcPagePartsOf(page, std::move(payload), clock_->WallMs());
  if (IsNotModifiedAnswer(page)) {
    MakeNotModifiedRevisit(page, parts);
    ++window_revisits_;
    window_bytes_saved_ += page.not_modified_since().body_bytes();  // 0 when the earlier size is unknown
  } else if (Status s = Deduplicate(page, parts); !s.ok()) {
    FailWindow(s);
    return window_error_;
  }
  pool_->Submit(std::move(parts), page.dedup_key().empty() ? page.url() : page.dedup_key());
  Drain(/*wait_for_all=*/false);
  return window_error_;
}

Status WarcSink::Deduplicate(const v1::Page& page, WarcPageParts& parts) {
  const uint64_t body_length = page.body().empty() ? page.body_length() : page.body().size();
  // Only a payload whose digest the fetcher sent (ours always do for a
  // WARC sink) and that is not empty: an empty body saves nothing.
  if (!digests_ || page.body_sha1().size() != kSha1Bytes || body_length == 0) return Status::Ok();
  const std::string digest = Base32Encode(page.body_sha1());
  Result<std::optional<StoredPayload>> original = digests_->Find(digest);
  if (!original.ok()) {
    // Storing the page whole is always right: a broken digest index costs
    // dedup, never a page (and never a window, which would fail for ever).
    if (!dedup_error_logged_) {
      spdlog::warn("{}; pages are stored whole until the writer restarts", original.status().message());
      dedup_error_logged_ = true;
    }
    return Status::Ok();
  }
  if (*original) {
    MakeRevisit(page, std::move((*original)->target_uri), std::move((*original)->warc_date),
                std::move((*original)->record_id), parts);
    ++window_revisits_;
    window_bytes_saved_ += body_length;
    return Status::Ok();
  }
  Result<std::string> id = NewWarcRecordId();
  if (!id.ok()) return id.status();
  parts.response_record_id = *id;
  digests_->AddPending(digest, {parts.target_uri, parts.date, std::move(*id)});
  return Status::Ok();
}

void WarcSink::Drain(bool wait_for_all) {
  // Over the high mark, wait down to half of it: one sleep per many pages
  // instead of one per page.
  const size_t max_pages = kWarcMaxPagesInFlightPerThread * static_cast<size_t>(std::max(threads_, 1));
  bool waiting = wait_for_all || pool_->pending_pages() > max_pages ||
                 pool_->pending_bytes() > kWarcMaxBytesInFlight;
  while (true) {
    if (waiting && !wait_for_all) {
      waiting = pool_->pending_pages() > max_pages / 2 ||
                pool_->pending_bytes() > kWarcMaxBytesInFlight / 2;
    }
    std::optional<EncodedWarcPage> page = pool_->TakeNext(waiting);
    if (!page) return;
    if (!window_error_.ok()) continue;  // the window failed: drop the rest
    if (Status s = AppendPage(*page); !s.ok()) FailWindow(std::move(s));
  }
}

Status WarcSink::AppendPage(EncodedWarcPage& page) {
  if (!page.status.ok()) return page.status;
  if (file_.is_open() && pages_in_file_ > 0 && file_bytes_ + page.bytes.size() > options_.warc_max_bytes) {
    // The flush in flight may still be syncing this file: let it end first.
    CompleteSync();
    if (!window_error_.ok()) return window_error_;
    if (Status s = FinishFile(); !s.ok()) return s;
  }
  if (!file_.is_open()) {
    if (Status s = StartFile(); !s.ok()) return s;
  }
  index_.Add(page.key, file_name_, file_bytes_, page.bytes.size(),
             CdxjLine(page.response.cdxj, page.response.bytes, file_bytes_, file_name_), page.response.depth,
             page.response.title, page.response.validators);
  buffer_ += page.bytes;
  file_bytes_ += page.bytes.size();
  ++pages_in_file_;
  if (buffer_.size() >= kWarcWriteChunkBytes) return WriteBuffer();
  return Status::Ok();
}

void WarcSink::FailWindow(Status error) {
  // Cutting the file back must wait for a flush that is using it.
  CompleteSync();
  if (window_error_.ok()) window_error_ = std::move(error);
  AbandonFile();
  index_.DropPending();
  CutFinishedFilesToIndex();
  if (digests_) digests_->DropPending();
  window_revisits_ = 0;
  window_bytes_saved_ = 0;
}

std::pair<std::set<std::string>, uint64_t> WarcSink::NamesAndIndexStart(const std::vector<FinishedFile>& files) {
  std::pair<std::set<std::string>, uint64_t> result{{}, UINT64_MAX};
  for (const FinishedFile& file : files) {
    result.first.insert(file.name);
    result.second = std::min(result.second, file.index_from);
  }
  return result;
}

void WarcSink::CutFinishedFilesToIndex() {
  // Files that rotation closed while the failed window(s) ran hold some of
  // their pages; cut those out (warc_recovery.h). The flush in flight is
  // over, so the index is not being written.
  if (finished_files_.empty()) return;
  const auto [names, from] = NamesAndIndexStart(finished_files_);
  WarcRecoveryCounts cut;
  if (Status s = CutWarcFilesToIndex(options_.out_dir, options_.warc_prefix, index_.path(), from, &names, &cut);
      !s.ok()) {
    // The next Open cuts them; until then a page may be in a file twice.
    spdlog::warn("warc: cannot cut a failed window's pages out of a finished file: {}", s.message());
  }
  recovered_.files_cut += cut.files_cut;
  recovered_.bytes_cut += cut.bytes_cut;
  recovered_.files_set_aside += cut.files_set_aside;
  if (cut.files_set_aside > 0) {
    // Set aside: no CDXJ to write for them.
    std::erase_if(finished_files_, [&](const FinishedFile& file) {
      return !std::filesystem::exists(std::filesystem::path(options_.out_dir) / file.name);
    });
  }
}

Status WarcSink::Flush() {
  Status begun = BeginFlush();
  Status finished = FinishFlush();
  return begun.ok() ? finished : begun;
}

Status WarcSink::BeginFlush() {
  if (!open_) return InternalError("WarcSink::BeginFlush called while not open");
  if (sync_.valid()) return InternalError("WarcSink::BeginFlush while a flush is in flight");
  Drain(/*wait_for_all=*/true);
  if (window_error_.ok() && file_.is_open()) {
    if (Status s = WriteBuffer(); !s.ok()) FailWindow(std::move(s));
  }
  if (!window_error_.ok()) {
    // The window is over: report its failure once, start the next afresh.
    return std::exchange(window_error_, Status::Ok());
  }
  // The disk makes this window durable on another thread while the sink
  // thread goes on with the next one. Order, as in a plain flush: the WARC
  // bytes, then the folder entry of a new file, then the index lines that
  // point at them, then the index's own folder entry.
  index_.Seal();
  if (digests_) digests_->Seal();
  sync_revisits_ = std::exchange(window_revisits_, 0);
  sync_bytes_saved_ = std::exchange(window_bytes_saved_, 0);
  sync_file_ = file_.is_open() ? files_started_ : 0;
  sync_bytes_ = file_bytes_;
  const bool sync_dir = std::exchange(dir_sync_needed_, false);
  sync_dir_pending_ = sync_dir;
  // Files finished since the last flush get their CDXJ once their last
  // index lines, sealed just now, are durable.
  sync_finished_files_ = std::exchange(finished_files_, {});
  auto sync = [this, fd = file_.fd(), path = path_, sync_dir, finished = sync_finished_files_,
               has_pages = index_.has_sealed()] {
    if (fd >= 0 && ::fsync(fd) != 0) return ErrnoStatus("fsync", path, errno);
    if (sync_dir) {
      if (Status s = FsyncDir(options_.out_dir); !s.ok()) return s;
    }
    // The instant recovery exists for: a window's pages durable, not yet
    // indexed (a window without pages does not count).
    if (has_pages) {
      FaultPoint("warc-data-synced", [&] {
        struct stat st {};
        return path + " " + std::to_string(fd >= 0 && ::fstat(fd, &st) == 0 ? st.st_size : 0);
      });
    }
    bool index_created = false;
    if (Status s = index_.FlushSealed(&index_created); !s.ok()) return s;
    if (index_created) {
      if (Status s = FsyncDir(options_.out_dir); !s.ok()) return s;
    }
    WriteCdxjOf(finished);
    return Status::Ok();
  };
  try {
    sync_ = std::async(std::launch::async, sync);
  } catch (const std::system_error&) {
    // No thread to be had (resource limits): sync here, unpipelined.
    std::promise<Status> done;
    done.set_value(sync());
    sync_ = done.get_future();
  }
  return Status::Ok();
}

bool WarcSink::FlushReady() {
  return !sync_.valid() || sync_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

Status WarcSink::FinishFlush() {
  CompleteSync();
  return std::exchange(sync_error_, Status::Ok());
}

void WarcSink::CompleteSync() {
  if (!sync_.valid()) return;
  Status s = sync_.get();  // leaves sync_ invalid: nothing in flight
  if (s.ok()) {
    index_durable_floor_ = index_.durable_size();
    sync_finished_files_.clear();
    revisits_ += std::exchange(sync_revisits_, 0);
    bytes_saved_ += std::exchange(sync_bytes_saved_, 0);
    if (digests_) {
      if (Status committed = digests_->CommitSealed(); !committed.ok()) {
        spdlog::warn("{}; later copies of those payloads are stored whole", committed.message());
      }
    }
    // Rotation and FailWindow wait for the flush, so the current file is
    // still the one it synced, unless it synced none.
    if (sync_file_ != 0 && sync_file_ == files_started_ && file_.is_open()) file_.MarkDurable(sync_bytes_);
    return;
  }
  // The window in flight failed, and with it the one being written: its
  // bytes follow in the same file, which is cut back to its last durable
  // size. Neither is acknowledged; both come again.
  if (sync_dir_pending_) dir_sync_needed_ = true;
  if (digests_) digests_->DropSealed();
  sync_revisits_ = 0;
  sync_bytes_saved_ = 0;
  // Their CDXJ waits for the next flush that makes the index durable.
  finished_files_.insert(finished_files_.begin(), sync_finished_files_.begin(), sync_finished_files_.end());
  sync_finished_files_.clear();
  sync_error_ = s;
  FailWindow(std::move(s));
}

Status WarcSink::Close() {
  if (!open_) return Status::Ok();
  CompleteSync();
  Status s = std::exchange(sync_error_, Status::Ok());
  if (s.ok()) s = Flush();
  if (s.ok() && file_.is_open()) s = FinishFile();
  if (!s.ok()) AbandonFile();
  if (s.ok()) s = SyncDirIfNeeded();
  // Every line is durable now (or, after a failure, as durable as it gets).
  if (s.ok()) WriteCdxjOf(std::exchange(finished_files_, {}));
  index_.DropPending();
  index_.Close();
  pool_.reset();
  if (revisits_ > 0) {
    spdlog::info("warc: {} revisit records for payloads stored before, {} payload bytes not stored again",
                 revisits_, bytes_saved_);
  }
  digests_.reset();
  open_ = false;
  return s;
}

Status WarcSink::ForEachStoredKey(const std::function<void(const std::string&)>& visit) {
  return index_.ForEachKey(visit);
}

Status WarcSink::StartFile() {
  const int64_t now_ms = clock_->WallMs();
  // "YYYYmmddHHMMSS" in UTC, the form CDXJ dates take too.
  const std::string stamp = CdxjTimestamp(FormatRfc3339Millis(now_ms));
  std::string name;
  std::string path;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kMaxCreateAttempts) {
      return ResourceExhaustedError("no free WARC serial in " + options_.out_dir);
    }
    name = WarcFileName(options_.warc_prefix, stamp, next_serial_);
    path = (fs::path(options_.out_dir) / name).string();
    ++next_serial_;
    Result<bool> created = file_.Create(path);  // never over an existing file
    if (!created.ok()) return created.status();
    if (*created) break;
  }
  ++files_started_;
  file_index_from_ = index_durable_floor_;
  path_ = std::move(path);
  file_name_ = name;
  file_bytes_ = 0;
  pages_in_file_ = 0;
  dir_sync_needed_ = true;

  Result<std::string> id = NewWarcRecordId();
  if (!id.ok()) {
    AbandonFile();
    return id.status();
  }
  std::string block = kWarcinfoBlock;
  if (const std::string host = LocalHostName(); !host.empty()) {
    AppendWarcField(block, "hostname", host);
  }
  WarcRecord info{"warcinfo", std::move(*id), FormatWarcDate(now_ms), {}, std::move(block)};
  Result<std::string> digest = WarcSha1Digest(info.block);
  if (!digest.ok()) {
    AbandonFile();
    return digest.status();
  }
  info.AddField("WARC-Filename", name);
  info.AddField("Content-Type", "application/warc-fields");
  info.AddField("WARC-Block-Digest", std::move(*digest));
  std::string record;
  AppendWarcRecord(info, record);
  const size_t before = buffer_.size();
  Status s = gzip_.AppendMember(record, buffer_);
  if (!s.ok()) {
    AbandonFile();
    return s;
  }
  file_bytes_ += buffer_.size() - before;
  return Status::Ok();
}
Status WarcSink::FinishFile() {
  Status s = WriteBuffer();
  if (s.ok()) s = file_.Sync();
  if (!s.ok()) return s;
  // The data is durable already, so a failing close cannot lose any.
  file_.Close();
  finished_files_.push_back({file_name_, file_index_from_});
  path_.clear();
  file_name_.clear();
  return Status::Ok();
}

Status WarcSink::WriteBuffer() {
  if (buffer_.empty()) return Status::Ok();
  Status s = file_.Append(buffer_);
  if (s.ok()) buffer_.clear();
  return s;
}

void WarcSink::AbandonFile() {
  buffer_.clear();
  if (!file_.is_open()) return;
  if (file_.durable_size() == 0) {
    // Nothing in it was ever acknowledged: remove it.
    file_.Remove();
  } else {
    // Best effort: a cut that fails leaves bytes the next Open cuts.
    file_.CutToDurable().IgnoreError();
    file_.Close();
    finished_files_.push_back({file_name_, file_index_from_});  // never written to again
  }
  path_.clear();
  file_name_.clear();
}

void WarcSink::WriteCdxjOf(const std::vector<FinishedFile>& files) const {
  if (files.empty()) return;
  const auto [names, from] = NamesAndIndexStart(files);
  // The pages are durable and acknowledged either way: a CDXJ that cannot
  // be written now is written by the next writer's Open or `./run index`.
  if (Status s = WriteWarcFileCdxj(options_.out_dir, index_.path(), from, &names, nullptr); !s.ok()) {
    spdlog::warn("cannot write the CDXJ index of {} WARC file(s): {}; the next writer start or `./run index` "
                 "writes it", names.size(), s.message());
  }
}

Status WarcSink::SyncDirIfNeeded() {
  if (!dir_sync_needed_) return Status::Ok();
  Status s = FsyncDir(options_.out_dir);
  if (s.ok()) dir_sync_needed_ = false;
  return s;
}

}  // namespace zcrawl::writer

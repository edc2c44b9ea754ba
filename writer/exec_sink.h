// ExecSink: hands every page, as one JSON line (PageJson from page_json.h,
// with the body when SinkOptions::jsonl_body is set), to a command of the
// operator's choosing on its standard input: `--format 'exec:CMD'`. This is
// the escape hatch for storage zcrawl has no sink for (a database loader, a
// message queue client, `gzip > pages.jsonl.gz`), without writing C++.
//
// The command: Open runs `/bin/sh -c CMD` with out_dir (created if missing)
// as its working folder, in a process group of its own (so a Ctrl-C meant for
// the writer does not kill it before the last batch is handed over), with
// default signal dispositions, stdout/stderr shared with the writer. It
// reads one line per page until end of input, which Close sends.
//
// Durability: a page counts as stored, and the writer acknowledges it, once
// Flush has written its line into the pipe. What the command then does with
// it (and whether that survives a crash) is the command's business: an ack
// means "handed to CMD", not "on disk". A command that wants stronger
// guarantees stores synchronously and exits non-zero when it cannot.
//
// Failure: once the command has exited (before Close), cannot take input, or
// does not drain the pipe within write_timeout_ms, the sink is broken for
// good: Write and Flush return Unavailable naming the exit status (or
// DeadlineExceeded for a hung command), the pages since the last good Flush
// are not acknowledged, and nothing more is sent. The command is not
// restarted, since running `CMD > file` again could destroy what it wrote.
// Close reports a non-zero exit as Unavailable, and a command that has not
// exited within close_timeout_ms after end of input is killed (SIGTERM, then
// SIGKILL) and reported as DeadlineExceeded. Lines already in the pipe when
// the command dies are lost although acknowledged; Flush checks the command
// is still running after writing to make that window small.
//
// Restarts: the sink cannot list what the command stored, so it keeps the
// default Sink::ForEachStoredKey (NotFound). After a writer restart a page
// that a fetcher resends reaches the command again; a consumer that must not
// see a URL twice de-duplicates by "url" itself.
//
// Thread-safety: none; the writer's sink thread owns the sink (sink.h). The
// sink never raises SIGPIPE in the calling process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "writer/sink.h"
#include "writer/sink_options.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

// The --format prefix: "exec:CMD".
inline constexpr std::string_view kExecFormatPrefix = "exec:";
// Write() hands buffered lines to the pipe once this many bytes are pending.
inline constexpr size_t kExecWriteChunkBytes = 1u << 20;

struct ExecSinkLimits {
  // Longest a Flush (or a chunk in Write) may wait for the command to read.
  // Longer tolerates slow consumers; shorter turns a hung one into failed
  // pages sooner.
  int64_t write_timeout_ms = 60000;
  // Close waits this long for the command to exit after end of input.
  int64_t close_timeout_ms = 10000;
};

class ExecSink : public Sink {
 public:
  ExecSink(SinkOptions options, std::string command, ExecSinkLimits limits = {});
  ~ExecSink() override;  // Close(), error ignored: call Close to see it
  ExecSink(const ExecSink&) = delete;
  ExecSink& operator=(const ExecSink&) = delete;

  // Creates out_dir if missing and starts the command. InvalidArgument for
  // an empty command; Unavailable if /bin/sh cannot be started. A command
  // that sh cannot find shows up as exit status 127 at the first Flush.
  // Opening an open sink does nothing.
  Status Open() override;
  // Writes every buffered line into the pipe.
  Status Flush() override;
  // Flushes, closes the pipe (end of input) and waits for the command.
  Status Close() override;
  std::string_view name() const override { return "exec"; }
  SinkNeeds needs() const override { return SinkNeeds{options_.jsonl_body, {}}; }

  const std::string& command() const { return command_; }
  // The command's process id while it runs (-1 before Open and once reaped).
  pid_t pid() const { return pid_; }

 private:
  Status Append(const v1::Page& page, PagePayload&& payload) override;
  // Writes buffer_ into the pipe, waiting at most write_timeout_ms.
  Status WriteBuffer();
  // Reaps the command if it has exited; true if it has (now or before).
  bool Reaped();
  // Waits up to timeout_ms for the command to exit; true if it did.
  bool WaitForExit(int64_t timeout_ms);
  // "command 'CMD' exited with status N" / "... was killed by signal N".
  std::string ExitDescription() const;
  // Records the first failure; later calls keep returning it.
  Status Break(Status status);

  SinkOptions options_;
  std::string command_;
  ExecSinkLimits limits_;
  bool open_ = false;
  pid_t pid_ = -1;
  int fd_ = -1;                    // write end of the command's stdin pipe
  std::optional<int> wait_status_; // from waitpid, once reaped
  Status failure_;                 // sticky: not OK once the sink is broken
  std::string buffer_;             // lines not yet in the pipe
};

}  // namespace zcrawl::writer

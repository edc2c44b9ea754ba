// WarcEncodePool: encodes pages into gzip'd WARC records (WarcPageEncoder)
// on worker threads and hands the results back in the order the pages were
// submitted, so a WarcSink keeps deflate and SHA-1 busy on every core while
// its own thread writes the previous results to disk.
//
// With 0 threads, Submit encodes on the caller's thread and no thread is
// started: same results, same order, one core. A page whose every block its
// fetcher compressed is wrapped on the caller's thread too (cheaper than a
// hand-off); it waits in the queue, done, for the pages before it. To save wake-ups, Submit
// wakes a sleeping worker only once a few pages wait; TakeNext(wait) wakes
// them all, then encodes pages no worker has started yet itself, and
// sleeps only when every page it waits for is being encoded already.
//
// The pool does not bound itself: its owner watches pending_pages() and
// pending_bytes() and calls TakeNext(/*wait=*/true) when they are too high
// (back-pressure, not growth).
//
// Thread-safety: Submit, TakeNext and the pending_* accessors are for one
// owning thread (the sink thread). The workers share only jobs_ and its
// counters, guarded by mu_; each worker owns its WarcPageEncoder.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "writer/warc_page_encoder.h"

namespace zcrawl::writer {

// One page's records as WarcPageEncoder made them.
struct EncodedWarcPage {
  std::string key;    // passed through from Submit
  std::string bytes;  // the page's gzip members, in order
  WarcResponseEntry response;  // the first member, and its CDXJ fields
  Status status;      // not OK: encoding failed, `bytes` is meaningless
};

class WarcEncodePool {
 public:
  // `threads` workers (0: none, encode in Submit); `gzip_level` as for
  // GzipMemberCompressor.
  WarcEncodePool(int threads, int gzip_level);
  // Stops and joins the workers; results not taken are dropped.
  ~WarcEncodePool();
  WarcEncodePool(const WarcEncodePool&) = delete;
  WarcEncodePool& operator=(const WarcEncodePool&) = delete;

  // Queues one page; `key` comes back with its result.
  void Submit(WarcPageParts parts, std::string key);
  // The oldest submitted page's result once it is encoded. Without `wait`,
  // nullopt when it is not ready yet; with `wait`, blocks until it is.
  // nullopt when nothing is pending.
  std::optional<EncodedWarcPage> TakeNext(bool wait);

  // Pages submitted and not yet taken.
  size_t pending_pages() const;
  // The page bytes they hold (bodies, or fetchers' compressed blocks).
  size_t pending_bytes() const;
  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  struct Job {
    WarcPageParts parts;  // released once encoded
    size_t page_bytes = 0;
    EncodedWarcPage result;
    bool done = false;
  };

  void WorkerLoop();
  // Encodes one started job outside the lock; `encoder` is the caller's.
  static void EncodeJob(WarcPageEncoder& encoder, Job& job);

  std::unique_ptr<WarcPageEncoder> inline_encoder_;  // 0 threads only
  std::unique_ptr<WarcPageEncoder> owner_encoder_;   // TakeNext(wait) helping; owner's thread only
  mutable Mutex mu_;
  std::condition_variable work_cv_;  // a job was queued, or stopping_
  std::condition_variable done_cv_;  // a job was finished
  // A job's `done` is written under mu_ too.
  std::deque<std::unique_ptr<Job>> jobs_ GUARDED_BY(mu_);  // submission order
  size_t next_unstarted_ GUARDED_BY(mu_) = 0;              // index into jobs_
  size_t pending_bytes_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  const int gzip_level_;
  std::vector<std::thread> workers_;
};

}  // namespace zcrawl::writer

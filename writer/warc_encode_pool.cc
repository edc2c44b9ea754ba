#include "writer/warc_encode_pool.h"

#include <sched.h>

#include <utility>

namespace zcrawl::writer {
namespace {

// Submit wakes a sleeping worker once this many pages wait for one (a
// waiting owner wakes them at once): fewer futex round trips when workers
// outpace the owner, e.g. at gzip level 0.
constexpr size_t kPagesPerWake = 4;

}  // namespace

WarcEncodePool::WarcEncodePool(int threads, int gzip_level) : gzip_level_(gzip_level) {
  if (threads <= 0) {
    inline_encoder_ = std::make_unique<WarcPageEncoder>(gzip_level);
    return;
  }
  workers_.reserve(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

WarcEncodePool::~WarcEncodePool() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void WarcEncodePool::Submit(WarcPageParts parts, std::string key) {
  auto job = std::make_unique<Job>();
  job->page_bytes = parts.page_bytes();
  job->result.key = std::move(key);
  if (inline_encoder_) {
    job->result.status = inline_encoder_->Encode(parts, job->result.bytes, &job->result.response);
    job->done = true;
  } else if (parts.compressed_by_fetcher()) {
    // Wrapping blocks a fetcher compressed costs less than handing the page
    // to a worker and taking it back (measured: +18% pages/s for the
    // writer process, -15% CPU). It joins the queue done, in its turn.
    if (!owner_encoder_) owner_encoder_ = std::make_unique<WarcPageEncoder>(gzip_level_);
    job->result.status = owner_encoder_->Encode(parts, job->result.bytes, &job->result.response);
    job->done = true;
  } else {
    job->parts = std::move(parts);
  }
  size_t unstarted = 0;
  {
    MutexLock lock(mu_);
    pending_bytes_ += job->page_bytes;
    jobs_.push_back(std::move(job));
    unstarted = jobs_.size() - next_unstarted_;
  }
  if (!inline_encoder_ && unstarted >= kPagesPerWake) work_cv_.notify_one();
}

std::optional<EncodedWarcPage> WarcEncodePool::TakeNext(bool wait) {
  MutexLock lock(mu_);
  if (jobs_.empty()) return std::nullopt;
  if (wait) {
    if (!jobs_.front()->done && next_unstarted_ < jobs_.size()) work_cv_.notify_all();
    // Rather than sleep while pages wait for a worker, encode them here: a
    // sleeping owner costs a wake-up per page and leaves a core idle.
    while (!jobs_.front()->done && next_unstarted_ < jobs_.size()) {
      Job* job = jobs_[next_unstarted_++].get();
      if (job->done) continue;  // encoded in Submit
      lock.Unlock();
      if (!owner_encoder_) owner_encoder_ = std::make_unique<WarcPageEncoder>(gzip_level_);
      EncodeJob(*owner_encoder_, *job);
      lock.Lock();
      job->done = true;
    }
    while (!jobs_.front()->done) done_cv_.wait(lock.native());
  } else if (!jobs_.front()->done) {
    return std::nullopt;
  }
  std::unique_ptr<Job> job = std::move(jobs_.front());
  jobs_.pop_front();
  if (next_unstarted_ > 0) --next_unstarted_;  // done jobs count as started
  pending_bytes_ -= job->page_bytes;
  return std::move(job->result);
}

size_t WarcEncodePool::pending_pages() const {
  MutexLock lock(mu_);
  return jobs_.size();
}

size_t WarcEncodePool::pending_bytes() const {
  MutexLock lock(mu_);
  return pending_bytes_;
}

void WarcEncodePool::EncodeJob(WarcPageEncoder& encoder, Job& job) {
  job.result.status = encoder.Encode(job.parts, job.result.bytes, &job.result.response);
  job.parts = WarcPageParts();  // free the body now
}

void WarcEncodePool::WorkerLoop() {
  // SCHED_BATCH: a worker woken by the owner does not preempt it. Without
  // it the scheduler ran the wakee on the owner's core first, the owner
  // (which alone feeds every worker and writes the file) waited, and the
  // other core idled (bench/RESULTS.md run I). Needs no privilege; on
  // failure the worker just keeps the default policy.
  const sched_param param{};
  (void)sched_setscheduler(0, SCHED_BATCH, &param);
  WarcPageEncoder encoder(gzip_level_);
  MutexLock lock(mu_);
  while (true) {
    while (!stopping_ && next_unstarted_ >= jobs_.size()) work_cv_.wait(lock.native());
    if (stopping_) return;
    // The deque only grows at the back and loses its front once done, so
    // the Job itself stays put while we work on it unlocked.
    Job* job = jobs_[next_unstarted_++].get();
    if (job->done) continue;  // encoded in Submit
    lock.Unlock();
    EncodeJob(encoder, *job);
    lock.Lock();
    job->done = true;
    // Only the owner waits, and only for the oldest job.
    if (job == jobs_.front().get()) done_cv_.notify_one();
  }
}

}  // namespace zcrawl::writer

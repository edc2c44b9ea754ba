// CurlMultiLoop: many HTTP requests in flight on one thread, the fetcher's
// event-loop way to fetch (`--io multi`, the default).
//
// With blocking fetches (`--io blocking`) every request in flight needs a
// worker thread parked in poll(); 256 requests cost 256 threads, their
// stacks and a context switch per response. Here one thread drives every
// transfer through libcurl's multi interface in its socket-action form:
// libcurl says which sockets it waits on, an epoll set watches them, and
// only the sockets that are ready are serviced, so a wake-up costs the
// transfers that have data, not all of them. Connections are kept alive
// in the multi handle's shared cache and reused across transfers.
//
// Each request is a CurlTransfer (curl_transfer.h), the same code the
// blocking client runs, so both ways fetch byte for byte alike. At most max_in_flight transfers run at once; more
// requests wait in order. The `done` callback runs on the loop's thread
// once a response is final: it should hand the response on (to the parse
// pool) and return quickly, since every transfer waits while it runs.
//
// Thread-safety: Submit, SetMaxInFlight and the counts may be called from
// any thread. Stop (and the destructor) joins the loop; requests not yet
// finished are dropped without their callback, and no callback runs after
// Stop returns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>

#include "common/mutex.h"
#include "common/status.h"
#include "fetcher/fetcher_options.h"
#include "fetcher/http_client.h"

namespace zcrawl::fetcher {

// The connections the loop keeps idle for reuse: `wanted`
// (--keep-connections) within what `open_files` leaves after two sockets
// per transfer and the process's others, and never fewer than twice the
// transfers that may run.
size_t KeptConnections(size_t wanted, size_t max_in_flight, uint64_t open_files);

class CurlMultiLoop {
 public:
  using Done = std::function<void(HttpResponse)>;

  CurlMultiLoop(const HttpOptions& options, size_t max_in_flight);
  ~CurlMultiLoop();
  CurlMultiLoop(const CurlMultiLoop&) = delete;
  CurlMultiLoop& operator=(const CurlMultiLoop&) = delete;

  // Makes the multi handle, the epoll set and the wake-up, and starts the
  // thread.
  Status Start();
  // Queues a request. False (and `done` dropped) once stopping or when
  // Start did not succeed.
  bool Submit(HttpRequest request, Done done);
  // Transfers allowed at once (0 is treated as 1); takes effect at the
  // next turn of the loop, and running transfers are never cut short.
  void SetMaxInFlight(size_t max_in_flight);
  void Stop();

  size_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
  // True once the loop gave up (its epoll set failed): nothing it holds
  // will complete, so its owner should stop and be restarted.
  bool failed() const { return failed_.load(); }
  size_t queued() const { return queued_.load(std::memory_order_relaxed); }

 private:
  struct Job;
  class Engine;  // the loop thread's state: multi handle, epoll, transfers

  void Wake();

  const HttpOptions& options_;
  std::unique_ptr<Engine> engine_;
  std::thread thread_;
  int wake_fd_ = -1;  // eventfd: Submit/Stop -> loop

  mutable Mutex mu_;
  std::deque<std::unique_ptr<Job>> incoming_ GUARDED_BY(mu_);
  size_t max_in_flight_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  bool started_ GUARDED_BY(mu_) = false;

  std::atomic<size_t> in_flight_{0};
  std::atomic<size_t> queued_{0};
  std::atomic<bool> failed_{false};
};

}  // namespace zcrawl::fetcher

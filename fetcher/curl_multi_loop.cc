#include "fetcher/curl_multi_loop.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "common/open_file_limit.h"
#include "fetcher/curl_transfer.h"
#include "fetcher/tls_session_shares.h"

namespace zcrawl::fetcher {
namespace {

// libcurl's timers run on real time, so the loop reads the real clock.
int64_t SteadyMs() { return RealClock::Get().NowMs(); }

// epoll interest for what libcurl waits on.
uint32_t EpollEvents(int what) {
  uint32_t events = 0;
  if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= EPOLLIN;
  if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= EPOLLOUT;
  return events;
}

// TLS sessions are kept for this many origins per --keep-connections: an
// origin whose connection was closed can still resume (a session is a few
// KB, a kept connection ~50).
constexpr size_t kTlsOriginsPerKeptConnection = 4;

}  // namespace

size_t KeptConnections(size_t wanted, size_t max_in_flight, uint64_t open_files) {
  constexpr uint64_t kOtherFiles = 256;  // sockets to the frontier and writer, logs, the state
  const uint64_t busy = 2 * uint64_t{max_in_flight} + kOtherFiles;
  const uint64_t room = open_files > busy ? open_files - busy : 0;
  return std::max<size_t>(2 * max_in_flight, std::min<uint64_t>(wanted, room));
}

struct CurlMultiLoop::Job {
  HttpRequest request;
  Done done;
  HttpResponse response;
  std::unique_ptr<CurlTransfer> transfer;
  CURLSH* tls_share = nullptr;  // attached to the transfer's handle while it runs
};

class CurlMultiLoop::Engine {
 public:
  Engine(const HttpOptions& options, std::atomic<size_t>& in_flight)
      : options_(options), in_flight_(in_flight), tls_shares_(kTlsOriginsPerKeptConnection * options.keep_connections) {}
  ~Engine() {
    for (auto& [curl, job] : running_) curl_multi_remove_handle(multi_, curl);
    running_.clear();
    idle_.clear();  // easy handles go before the multi handle that cached their connections
    if (multi_) curl_multi_cleanup(multi_);
    if (epoll_fd_ >= 0) close(epoll_fd_);
  }

  Status Init(int wake_fd) {
    multi_ = curl_multi_init();
    if (!multi_) return InternalError("curl_multi_init failed");
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) return InternalError(std::string("epoll_create1: ") + strerror(errno));
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = wake_fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd, &event) != 0) {
      return InternalError(std::string("epoll_ctl(wake): ") + strerror(errno));
    }
    wake_fd_ = wake_fd;
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, OnSocket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, OnTimer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    return Status::Ok();
  }

  // The loop: take new requests, start what fits, wait for sockets or the
  // timer, let libcurl service them, finish what completed.
  void Run(CurlMultiLoop& owner) {
    std::vector<epoll_event> events(256);
    while (true) {
      size_t max_in_flight;
      {
        MutexLock lock(owner.mu_);
        if (owner.stopping_) return;
        while (!owner.incoming_.empty()) {
          waiting_.push_back(std::move(owner.incoming_.front()));
          owner.incoming_.pop_front();
        }
        max_in_flight = owner.max_in_flight_;
      }
      KeepConnectionsFor(max_in_flight);
      while (!waiting_.empty() && running_.size() < max_in_flight) {
        StartJob(std::move(waiting_.front()));
        waiting_.pop_front();
      }
      in_flight_.store(running_.size(), std::memory_order_relaxed);
      owner.queued_.store(waiting_.size(), std::memory_order_relaxed);

      const int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), WaitMs());
      if (n < 0 && errno != EINTR) {
        spdlog::error("fetch loop: epoll_wait failed: {}", strerror(errno));
        owner.failed_.store(true);
        return;
      }
      int still_running = 0;
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == wake_fd_) {
          uint64_t count;
          [[maybe_unused]] ssize_t r = read(wake_fd_, &count, sizeof count);
          continue;
        }
        int action = 0;
        if (events[i].events & EPOLLIN) action |= CURL_CSELECT_IN;
        if (events[i].events & EPOLLOUT) action |= CURL_CSELECT_OUT;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) action |= CURL_CSELECT_ERR;
        curl_multi_socket_action(multi_, fd, action, &still_running);
      }
      if (timer_deadline_ms_ >= 0 && SteadyMs() >= timer_deadline_ms_) {
        timer_deadline_ms_ = -1;
        curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &still_running);
      }
      FinishCompleted();
    }
  }

 private:
  void StartJob(std::unique_ptr<Job> job) {
    std::unique_ptr<CurlTransfer> transfer;
    if (!idle_.empty()) {
      transfer = std::move(idle_.back());
      idle_.pop_back();
    } else {
      transfer = std::make_unique<CurlTransfer>(options_);
    }
    transfer->Begin(job->request, &job->response);
    if (!transfer->ok()) {  // Begin filled in the failure
      Deliver(*job);
      return;
    }
    CURL* curl = transfer->curl();
    job->tls_share = tls_shares_.Acquire(job->request.url);
    curl_easy_setopt(curl, CURLOPT_SHARE, job->tls_share);
    job->transfer = std::move(transfer);
    if (CURLMcode code = curl_multi_add_handle(multi_, curl); code != CURLM_OK) {
      job->response.status = v1::FETCH_STATUS_WORKER_FAILED;
      job->response.error = std::string("curl_multi_add_handle: ") + curl_multi_strerror(code);
      Retire(*job);
      Deliver(*job);
      return;
    }
    running_.emplace(curl, std::move(job));
  }

  // The job's handle goes back to the idle ones, its TLS session share
  // detached (tls_session_shares.h).
  void Retire(Job& job) {
    curl_easy_setopt(job.transfer->curl(), CURLOPT_SHARE, nullptr);
    tls_shares_.Release(job.tls_share);
    job.tls_share = nullptr;
    idle_.push_back(std::move(job.transfer));
  }

  // A callback that throws must not take the loop, and every other
  // transfer, down with it. (The fetcher's own callback catches what it
  // can and fails the URL itself.)
  static void Deliver(Job& job) {
    try {
      job.done(std::move(job.response));
    } catch (const std::exception& e) {
      spdlog::error("fetch loop: a completion callback threw for url={}: {}", job.request.url, e.what());
    }
  }

  void FinishCompleted() {
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      CURL* curl = message->easy_handle;
      const CURLcode result = message->data.result;  // read before the handle is removed
      auto it = running_.find(curl);
      if (it == running_.end()) continue;
      curl_multi_remove_handle(multi_, curl);
      Job& job = *it->second;
      job.transfer->Finish(result);
      std::unique_ptr<Job> done = std::move(it->second);
      running_.erase(it);
      Retire(*done);
      // Counted out before the callback, which may look.
      in_flight_.store(running_.size(), std::memory_order_relaxed);
      Deliver(*done);
    }
  }

  // Connections kept for reuse: --keep-connections, and at least twice the
  // transfers that may run, so every running transfer's connection finds
  // room when it ends. libcurl's default is four per transfer running at
  // the moment one is returned: a quiet spell between waves of transfers
  // closed the connections the next wave needed (bench/RESULTS.md run AI:
  // 1,733 connects for 20,000 pages at 512 in flight, 524 with this). The
  // idle ones stay within the open-files limit after the running
  // transfers' two sockets each. Follows --threads when it changes.
  void KeepConnectionsFor(size_t max_in_flight) {
    if (max_in_flight == connections_for_) return;
    connections_for_ = max_in_flight;
    const uint64_t open_files = options_.open_files_share > 0 ? options_.open_files_share : OpenFileLimit();
    const size_t kept = KeptConnections(options_.keep_connections, max_in_flight, open_files);
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(kept));
  }

  int WaitMs() const {
    constexpr int kIdleWaitMs = 1000;  // only a wake-up or a socket ends it early
    if (timer_deadline_ms_ < 0) return kIdleWaitMs;
    const int64_t left = timer_deadline_ms_ - SteadyMs();
    return static_cast<int>(std::clamp<int64_t>(left, 0, kIdleWaitMs));
  }

  static int OnSocket(CURL*, curl_socket_t socket, int what, void* user, void*) {
    auto* self = static_cast<Engine*>(user);
    if (what == CURL_POLL_REMOVE) {
      // The socket may be closed already, which removed it from the set.
      epoll_ctl(self->epoll_fd_, EPOLL_CTL_DEL, socket, nullptr);
      return 0;
    }
    epoll_event event{};
    event.events = EpollEvents(what);
    event.data.fd = socket;
    if (epoll_ctl(self->epoll_fd_, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT &&
        epoll_ctl(self->epoll_fd_, EPOLL_CTL_ADD, socket, &event) != 0) {
      // Not -1: that would abort every transfer of the multi handle. This
      // one then ends by its own timeout, reported like any other.
      spdlog::warn("fetch loop: cannot watch socket {}: {}", socket, strerror(errno));
    }
    return 0;
  }

  static int OnTimer(CURLM*, long timeout_ms, void* user) {
    auto* self = static_cast<Engine*>(user);
    self->timer_deadline_ms_ = timeout_ms < 0 ? -1 : SteadyMs() + timeout_ms;
    return 0;
  }

  const HttpOptions& options_;
  std::atomic<size_t>& in_flight_;  // the owner's count
  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  int64_t timer_deadline_ms_ = -1;  // when libcurl wants a timeout call; -1: none
  size_t connections_for_ = 0;       // the max_in_flight the connection cache is sized for
  // Declared before the transfers: destroyed after every handle that used it.
  TlsSessionShares tls_shares_;
  std::deque<std::unique_ptr<Job>> waiting_;
  std::unordered_map<CURL*, std::unique_ptr<Job>> running_;
  std::vector<std::unique_ptr<CurlTransfer>> idle_;  // handles kept for reuse
};

CurlMultiLoop::CurlMultiLoop(const HttpOptions& options, size_t max_in_flight)
    : options_(options), max_in_flight_(std::max<size_t>(1, max_in_flight)) {}

CurlMultiLoop::~CurlMultiLoop() {
  Stop();
  if (wake_fd_ >= 0) close(wake_fd_);
}

Status CurlMultiLoop::Start() {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return InternalError(std::string("eventfd: ") + strerror(errno));
  auto engine = std::make_unique<Engine>(options_, in_flight_);
  if (Status s = engine->Init(wake_fd_); !s.ok()) return s;
  engine_ = std::move(engine);
  try {
    thread_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "zc-fetch-loop");
      engine_->Run(*this);
    });
  } catch (const std::system_error& e) {
    return ResourceExhaustedError(std::string("cannot start the fetch loop thread: ") + e.what());
  }
  MutexLock lock(mu_);
  started_ = true;
  return Status::Ok();
}

bool CurlMultiLoop::Submit(HttpRequest request, Done done) {
  {
    MutexLock lock(mu_);
    if (stopping_ || !started_) return false;
    auto job = std::make_unique<Job>();
    job->request = std::move(request);
    job->done = std::move(done);
    incoming_.push_back(std::move(job));
  }
  Wake();
  return true;
}

void CurlMultiLoop::SetMaxInFlight(size_t max_in_flight) {
  {
    MutexLock lock(mu_);
    max_in_flight_ = std::max<size_t>(1, max_in_flight);
  }
  Wake();
}

void CurlMultiLoop::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
    incoming_.clear();
  }
  Wake();
  if (thread_.joinable()) thread_.join();
  engine_.reset();  // drops unfinished transfers without their callbacks
}

void CurlMultiLoop::Wake() {
  if (wake_fd_ < 0) return;
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t r = write(wake_fd_, &one, sizeof one);
}

}  // namespace zcrawl::fetcher

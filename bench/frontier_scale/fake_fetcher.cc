#include "bench/frontier_scale/fake_fetcher.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <vector>

#include "net/envelope_codec.h"
#include "net/zmq_io.h"
#include "zcrawl.pb.h"

namespace zcrawl::bench {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

// Ready again only after this long without an answer: the first one waits
// in the socket until the frontier binds, and every Ready the frontier
// reads resets our credit there, so a spare one would strand what we asked.
constexpr int64_t kReadyRetryMs = 10000;
// Credit asked for again after this long without work: harmless if the
// frontier merely had nothing ready (credit is only a cap), and it heals a
// WorkRequest the frontier read before a late Ready.
constexpr int64_t kCreditRefreshMs = 2000;
// Messages handled per turn before the reports go out.
constexpr int kMessagesPerTurn = 64;

}  // namespace

FakeFetcher::FakeFetcher(zmq::context_t& context, const SyntheticWeb& web, FakeFetcherOptions options)
    : context_(context), web_(web), options_(std::move(options)) {}

FakeFetcher::~FakeFetcher() { Stop(); }

int64_t FakeFetcher::NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

void FakeFetcher::Start() {
  thread_ = std::thread([this] { Run(); });
}

void FakeFetcher::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void FakeFetcher::Run() {
  SocketSettings settings;
  settings.identity = options_.name;
  auto made = MakeSocket(context_, zmq::socket_type::dealer, settings);
  if (!made.ok()) {
    error_ = made.status().ToString();
    return;
  }
  zmq::socket_t socket = std::move(*made);
  if (Status s = Connect(socket, options_.endpoint); !s.ok()) {
    error_ = s.ToString();
    return;
  }
  EnvelopeCodec codec(options_.name);
  std::deque<std::string> outbox;  // encoded, not yet taken by the socket
  int64_t last_sent_ms = 0;
  auto queue = [&](v1::Envelope& envelope) { outbox.push_back(codec.Encode(envelope)); };
  auto flush = [&] {
    while (!outbox.empty()) {
      if (!SendFrame(socket, outbox.front()).ok()) {
        counters_.send_retries.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      outbox.pop_front();
      last_sent_ms = NowMs();
    }
  };

  bool joined = false;
  int64_t ready_sent_ms = -kReadyRetryMs;
  uint32_t open_credit = 0;  // asked for and not yet leased to us
  int64_t last_work_ms = NowMs();
  int64_t last_heard_ms = NowMs();
  std::string frontier_run;  // the sender id of the frontier we last heard
  v1::Envelope reports_envelope;
  v1::FetchReportBatch* reports = reports_envelope.mutable_fetch_reports();
  std::vector<std::string> links;
  InboundMessage message;

  auto answer = [&](const v1::WorkItem& item) {
    counters_.leases.fetch_add(1, std::memory_order_relaxed);
    v1::FetchReport* report = reports->add_reports();
    report->set_lease_id(item.lease_id());
    report->set_url(item.url());
    report->set_status(v1::FETCH_STATUS_OK);
    if (item.robots_only()) {  // "this origin has no robots.txt"
      counters_.robots_items.fetch_add(1, std::memory_order_relaxed);
      report->set_http_status(404);
      return;
    }
    const auto page = web_.Parse(item.url());
    if (page && options_.hosts_per_address > 0) {
      const uint64_t a = page->host / options_.hosts_per_address;
      report->set_server_address("10." + std::to_string((a >> 16) & 255) + "." + std::to_string((a >> 8) & 255) +
                                 "." + std::to_string(a & 255));
    }
    if (!page) {
      counters_.unknown_urls.fetch_add(1, std::memory_order_relaxed);
      report->set_http_status(404);
      return;
    }
    report->set_http_status(200);
    links.clear();
    web_.AppendLinks(*page, links);
    for (std::string& url : links) report->add_links()->set_url(std::move(url));
    counters_.links.fetch_add(links.size(), std::memory_order_relaxed);
  };
  auto close_reports = [&] {
    if (reports->reports_size() == 0) return;
    counters_.reports.fetch_add(static_cast<uint64_t>(reports->reports_size()), std::memory_order_relaxed);
    queue(reports_envelope);
    reports->clear_reports();
  };

  while (!stop_.load(std::memory_order_relaxed) && !counters_.told_shutdown.load()) {
    flush();  // the last turn's reports first: the credit below waits only for a full socket
    const int64_t now = NowMs();
    if (joined && now - last_heard_ms > options_.heartbeat_ms * options_.liveness) {
      counters_.silences.fetch_add(1, std::memory_order_relaxed);
      joined = false;  // dead, or restarting: join whoever answers next
      ready_sent_ms = -kReadyRetryMs;
    }
    if (!joined && now - ready_sent_ms >= kReadyRetryMs) {
      v1::Envelope ready;
      ready.mutable_ready()->set_role(v1::PEER_ROLE_FETCHER);
      ready.mutable_ready()->set_threads(options_.credit);
      ready.mutable_ready()->set_hostname("frontier-scale-bench");
      ready.mutable_ready()->set_pid(static_cast<uint32_t>(getpid()));
      queue(ready);
      ready_sent_ms = now;
      open_credit = 0;  // Ready resets it at the frontier
    }
    // Top up the credit in chunks of a quarter, as our fetcher does; not
    // while reports wait for the socket (back-pressure).
    if (joined && outbox.empty()) {
      if (now - last_work_ms >= kCreditRefreshMs) {
        open_credit = 0;
        last_work_ms = now;
      }
      const uint32_t missing = options_.credit - std::min(open_credit, options_.credit);
      if (missing > 0 && missing >= std::max<uint32_t>(1, options_.credit / 4)) {
        v1::Envelope request;
        request.mutable_work_request()->set_credit(missing);
        queue(request);
        open_credit += missing;
      }
    }
    if (joined && outbox.empty() && now - last_sent_ms >= options_.heartbeat_ms) {
      v1::Envelope heartbeat;
      v1::FetcherLoad* load = heartbeat.mutable_heartbeat()->mutable_load();
      load->set_live_workers(options_.credit);
      load->set_idle_workers(options_.credit);
      load->set_target_workers(options_.credit);
      queue(heartbeat);
    }
    flush();

    zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
    const int64_t timeout_ms = outbox.empty() ? std::min<int64_t>(100, options_.heartbeat_ms / 2) : 1;
    try {
      zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms));
    } catch (const zmq::error_t&) {
      continue;  // EINTR
    }
    for (int n = 0; n < kMessagesPerTurn; ++n) {
      Status received = ReceiveMessage(socket, /*from_router=*/false, &message);
      if (received.code() == StatusCode::kNotFound) break;
      if (!received.ok()) {
        counters_.malformed.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      auto envelope = EnvelopeCodec::Decode(message.payload);
      if (!envelope.ok()) {
        counters_.malformed.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      last_heard_ms = NowMs();
      if (envelope->sender_id() != frontier_run) {  // a frontier run we have not heard yet
        frontier_run = envelope->sender_id();
        counters_.run_first_work_ns.store(0);
        counters_.frontier_runs.fetch_add(1);
      }
      switch (envelope->payload_case()) {
        case v1::Envelope::kHeartbeat:  // the answer to Ready, or a sign of life
          joined = true;
          break;
        case v1::Envelope::kWorkBatch: {
          joined = true;
          last_work_ms = NowMs();
          if (counters_.run_first_work_ns.load(std::memory_order_relaxed) == 0) {
            counters_.run_first_work_ns.store(NowNs());
          }
          const auto& items = envelope->work_batch().items();
          open_credit -= std::min(open_credit, static_cast<uint32_t>(items.size()));
          for (const v1::WorkItem& work : items) {
            answer(work);
            if (static_cast<uint32_t>(reports->reports_size()) >= options_.max_reports_per_message) {
              close_reports();
            }
          }
          break;
        }
        case v1::Envelope::kReject:  // the frontier does not know us: join again
          counters_.rejects.fetch_add(1, std::memory_order_relaxed);
          joined = false;
          ready_sent_ms = -kReadyRetryMs;
          open_credit = 0;
          break;
        case v1::Envelope::kShutdown:
          counters_.told_shutdown.store(true);
          break;
        default:  // SetThreads and anything newer: nothing to do
          break;
      }
    }
    close_reports();
  }
  // Leave: what is still in the outbox goes first (reports the frontier
  // can still count), then Goodbye; the socket's linger bounds it.
  close_reports();
  v1::Envelope goodbye;
  goodbye.mutable_goodbye()->set_reason(counters_.told_shutdown.load() ? "crawl over" : "benchmark done");
  queue(goodbye);
  const int64_t give_up_ms = NowMs() + 1000;
  while (!outbox.empty() && NowMs() < give_up_ms) {
    flush();
    if (!outbox.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace zcrawl::bench

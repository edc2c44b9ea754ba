#include "launcher/progress_display.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "net/zmq_io.h"

namespace zcrawl::launcher {
namespace {

constexpr int64_t kRequestEveryMs = 500;
constexpr int64_t kTerminalDrawEveryMs = 500;
constexpr int64_t kLogEveryMs = 10000;

zmq::socket_t Dealer(zmq::context_t& context, const std::string& endpoint) {
  SocketSettings settings;
  settings.linger_ms = 0;
  settings.send_hwm = 4;  // a status request that cannot go out is simply skipped
  auto socket = MakeSocket(context, zmq::socket_type::dealer, settings);
  if (!socket.ok()) return {};
  (void)Connect(*socket, endpoint);
  return std::move(*socket);
}

std::string Bytes(uint64_t n) {
  char buf[32];
  if (n >= (1ull << 30)) snprintf(buf, sizeof buf, "%.2f GB", n / 1073741824.0);
  else if (n >= (1ull << 20)) snprintf(buf, sizeof buf, "%.1f MB", n / 1048576.0);
  else snprintf(buf, sizeof buf, "%.1f KB", n / 1024.0);
  return buf;
}

std::string Duration(double seconds) {
  char buf[32];
  const auto s = static_cast<long>(seconds);
  snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

}  // namespace

ProgressDisplay::ProgressDisplay(zmq::context_t& context, std::string frontier_endpoint,
                                 std::string writer_endpoint, bool terminal)
    : codec_("launcher-" + std::to_string(getpid())),
      frontier_(Dealer(context, frontier_endpoint)),
      writer_(Dealer(context, writer_endpoint)),
      terminal_(terminal),
      started_ms_(clock_.NowMs()) {}

void ProgressDisplay::Poll(zmq::socket_t& socket, std::optional<v1::StatusReply>& last) {
  if (!socket) return;
  InboundMessage message;
  while (ReceiveMessage(socket, false, &message).ok()) {
    auto envelope = EnvelopeCodec::Decode(message.payload);
    if (envelope.ok() && envelope->has_status_reply()) last = envelope->status_reply();
  }
}

void ProgressDisplay::Tick() {
  const int64_t now = clock_.NowMs();
  Poll(frontier_, frontier_status_);
  Poll(writer_, writer_status_);
  if (now - last_request_ms_ >= kRequestEveryMs) {
    last_request_ms_ = now;
    for (zmq::socket_t* socket : {&frontier_, &writer_}) {
      if (!*socket) continue;
      v1::Envelope request;
      request.mutable_status_request();
      const std::string bytes = codec_.Encode(request);
      SendFrame(*socket, bytes).IgnoreError();
    }
  }
  if (!frontier_status_) return;
  if (terminal_ && now - last_draw_ms_ >= kTerminalDrawEveryMs) {
    last_draw_ms_ = now;
    fprintf(stderr, "\r\033[K%s", Line().c_str());
    fflush(stderr);
    drawn_ = true;
  } else if (!terminal_ && now - last_draw_ms_ >= kLogEveryMs) {
    last_draw_ms_ = now;
    fprintf(stderr, "crawl: %s\n", Line().c_str());
  }
}

void ProgressDisplay::Redraw() {
  if (!terminal_ || !frontier_status_ || finished_drawing_) return;
  fprintf(stderr, "\r\033[K%s", Line().c_str());
  fflush(stderr);
  drawn_ = true;
}

void ProgressDisplay::Clear() {
  if (drawn_) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    drawn_ = false;
  }
}

std::string ProgressDisplay::Line() const {
  const auto& f = *frontier_status_;
  const double seconds = static_cast<double>(clock_.NowMs() - started_ms_) / 1000.0;
  char buf[512];
  int n = snprintf(buf, sizeof buf,
                   "[%s] %llu done  %llu failed  %llu queued  %llu leased  %.0f pages/s  %llu hosts",
                   Duration(seconds).c_str(), static_cast<unsigned long long>(f.done()),
                   static_cast<unsigned long long>(f.failed()),
                   static_cast<unsigned long long>(f.waiting()),
                   static_cast<unsigned long long>(f.leased()), f.pages_per_second(),
                   static_cast<unsigned long long>(f.hosts()));
  std::string line(buf, static_cast<size_t>(n));
  if (writer_status_) line += "  " + Bytes(writer_status_->bytes_stored()) + " stored";
  if (f.paused()) line += "  PAUSED (./run control resume)";
  if (f.draining()) line += "  DRAINING";
  if (!f.waiting_for_space().empty()) line += "  WAITING FOR SPACE: " + f.waiting_for_space();
  if (f.max_pages() > 0 && f.pages_per_second() > 0.1) {
    const double remaining = static_cast<double>(f.max_pages()) - static_cast<double>(f.done() + f.failed());
    if (remaining > 0) line += "  ETA " + Duration(remaining / f.pages_per_second());
  }
  return line;
}

void ProgressDisplay::PrintSummary(const std::string& summary_json, double seconds, bool ok) const {
  auto json = nlohmann::json::parse(summary_json, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return;
  const uint64_t done = json.value("done", 0ull);
  const uint64_t failed = json.value("failed", 0ull);
  fprintf(stderr, "crawl: %llu pages done, %llu failed in %s (%.0f pages/s)%s\n",
          static_cast<unsigned long long>(done), static_cast<unsigned long long>(failed),
          Duration(seconds).c_str(), seconds > 0 ? (done + failed) / seconds : 0.0,
          ok ? "" : " — not finished");
  std::string classes;
  const auto status_classes = json.value("status_classes", nlohmann::json::object());
  const auto top_hosts = json.value("top_hosts", nlohmann::json::array());
  const auto failure_reasons = json.value("failure_reasons", nlohmann::json::object());
  for (auto& [name, n] : status_classes.items()) {
    classes += "  " + name + ": " + std::to_string(n.get<uint64_t>());
  }
  if (!classes.empty()) fprintf(stderr, "crawl: HTTP status%s\n", classes.c_str());
  std::string hosts;
  for (auto& host : top_hosts) {
    hosts += "  " + host.value("host", "") + " (" + std::to_string(host.value("done", 0ull)) + ")";
  }
  if (!hosts.empty()) fprintf(stderr, "crawl: top hosts%s\n", hosts.c_str());
  std::vector<std::pair<uint64_t, std::string>> reasons;
  for (auto& [name, n] : failure_reasons.items()) {
    reasons.emplace_back(n.get<uint64_t>(), name);
  }
  std::sort(reasons.rbegin(), reasons.rend());
  std::string top;
  for (size_t i = 0; i < reasons.size() && i < 5; ++i) {
    top += "  " + reasons[i].second + ": " + std::to_string(reasons[i].first);
  }
  if (!top.empty()) fprintf(stderr, "crawl: failures%s\n", top.c_str());
  // Per origin, why it failed: the cause behind robots_unavailable or
  // network errors (connection refused, TLS certificate, DNS, timeout).
  // Kept across a frontier's restart; a state of an older build that
  // failed only before the restart has none ("unknown").
  const auto failing = json.value("failing_hosts", nlohmann::json::array());
  size_t shown = 0;
  for (auto& host : failing) {
    if (shown++ == 5) {
      fprintf(stderr, "crawl:   ... %zu more (./run status lists them while crawling)\n",
              failing.size() - 5);
      break;
    }
    const std::string last = host.value("last_failure", "");
    fprintf(stderr, "crawl: failing %s: %llu failed, %llu done; last: %s\n",
            host.value("host", "").c_str(),
            static_cast<unsigned long long>(host.value("failed", 0ull)),
            static_cast<unsigned long long>(host.value("done", 0ull)),
            last.empty() ? "unknown" : last.c_str());
  }
}

}  // namespace zcrawl::launcher

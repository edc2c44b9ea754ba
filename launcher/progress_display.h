// ProgressDisplay: what `./run crawl` shows while it runs. It asks the
// frontier and the writer for their status (StatusRequest over a DEALER
// each) and renders one line: on a terminal redrawn in place twice a
// second, otherwise logged every 10 s. At the end it prints the summary.
//
// Used from the launcher's single thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "common/clock.h"
#include "net/envelope_codec.h"
#include "zcrawl.pb.h"

namespace zcrawl::launcher {

class ProgressDisplay {
 public:
  ProgressDisplay(zmq::context_t& context, std::string frontier_endpoint,
                  std::string writer_endpoint, bool terminal);

  // Sends requests and reads replies; redraws when due. Never blocks.
  void Tick();
  // Clears the live line (before other output or at the end).
  void Clear();
  // Draws it again at once (after other output), unless StopDrawing was called.
  void Redraw();
  // Clears it for good: the crawl is over.
  void StopDrawing() {
    Clear();
    finished_drawing_ = true;
  }
  // Final lines from the frontier's summary file (JSON) and the last
  // status seen.
  void PrintSummary(const std::string& summary_json, double seconds, bool ok) const;

  bool terminal() const { return terminal_; }

 private:
  void Poll(zmq::socket_t& socket, std::optional<v1::StatusReply>& last);
  std::string Line() const;

  const RealClock clock_;
  EnvelopeCodec codec_;
  zmq::socket_t frontier_;
  zmq::socket_t writer_;
  const bool terminal_;
  int64_t started_ms_;
  int64_t last_request_ms_ = 0;
  int64_t last_draw_ms_ = 0;
  std::optional<v1::StatusReply> frontier_status_;
  std::optional<v1::StatusReply> writer_status_;
  bool drawn_ = false;
  bool finished_drawing_ = false;
};

}  // namespace zcrawl::launcher

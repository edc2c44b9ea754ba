// Console: the launcher's stderr while a crawl runs. Lines for the user and
// the children's relayed log lines print above the live progress line
// (ProgressDisplay, once there is one), which is cleared before them and
// drawn again after; without a display they simply print.
//
// Owned by the launcher; the display it draws belongs to the caller and
// must outlive its use here (set_display(nullptr) forgets it). Used from the
// launcher's single thread.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace zcrawl::launcher {

class ProgressDisplay;

class Console {
 public:
  explicit Console(FILE* out = stderr) : out_(out) {}
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  void set_display(ProgressDisplay* display) { display_ = display; }
  ProgressDisplay* display() const { return display_; }

  // A printf-style message for the user (ending in "\n"), above the live line.
  template <typename... Args>
  void Say(const char* format, Args... args) {
    Clear();
    if constexpr (sizeof...(Args) == 0) {
      fputs(format, out_);  // no arguments: not a format (a literal '%' stays)
    } else {
      fprintf(out_, format, args...);
    }
    Redraw();
  }
  // A child's log lines, each printed as a line above the live line.
  void Relay(const std::vector<std::string>& lines);
  // Redraws the live line when due (never blocks).
  void Tick();
  // Clears the live line for good: the crawl is over.
  void StopDrawing();

 private:
  void Clear();
  void Redraw();

  FILE* const out_;
  ProgressDisplay* display_ = nullptr;
};

}  // namespace zcrawl::launcher

#include "launcher/console.h"

#include "launcher/progress_display.h"

namespace zcrawl::launcher {

void Console::Relay(const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  Clear();
  for (const std::string& line : lines) fprintf(out_, "%s\n", line.c_str());
  Redraw();
}

void Console::Tick() {
  if (display_) display_->Tick();
}

void Console::StopDrawing() {
  if (display_) display_->StopDrawing();
}

void Console::Clear() {
  if (display_) display_->Clear();
}

void Console::Redraw() {
  if (display_) display_->Redraw();
}

}  // namespace zcrawl::launcher

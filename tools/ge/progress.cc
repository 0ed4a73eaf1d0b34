#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace ge::cli {

Progress::Progress() : enabled_(isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() { Clear(); }

void Progress::Show(const std::string& text) {
  if (!enabled_) return;
  // Carriage return plus "erase to end of line" rewrites the line in place.
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  visible_ = true;
}

void Progress::Clear() {
  if (!visible_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  visible_ = false;
}

}  // namespace ge::cli

// Progress of long work (compiling a large model, many timed runs) on stderr.
//
// Shown only when stderr is a terminal, so that logs, pipes and --json
// consumers never see it; the line is rewritten in place and erased when done.
#pragma once

#include <string>

namespace ge::cli {

class Progress {
 public:
  Progress();
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Replaces the current progress line.
  void Show(const std::string& text);
  // Erases the progress line.
  void Clear();

 private:
  bool enabled_;
  bool visible_ = false;
};

}  // namespace ge::cli

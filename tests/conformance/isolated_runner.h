// Runs jobs in forked child processes, a few at a time, so that a crash, an
// abort or a hang in one job becomes that job's failure instead of the end of
// the whole run.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace ge::conformance {

struct JobResult {
  bool passed = false;
  std::string message;  // why it failed; empty when passed
  double seconds = 0;
};

// A job returns nullopt on success or the failure message; exceptions it
// throws are failures with their what().
using Job = std::function<std::optional<std::string>(size_t index)>;

// Runs job(0) .. job(count - 1), each in its own child process, `workers` at
// once; a child running longer than timeout_seconds is killed. done(index,
// result) is called in the parent as each job finishes, in completion order.
// The children's stdout and stderr are discarded.
void RunIsolated(size_t count, const Job& job, int workers, double timeout_seconds,
                 const std::function<void(size_t, const JobResult&)>& done);

}  // namespace ge::conformance

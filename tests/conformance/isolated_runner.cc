#include "isolated_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace ge::conformance {
namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  size_t index = 0;
  pid_t pid = -1;
  int pipe_fd = -1;  // read end; the child writes 'P' or 'F' + message
  Clock::time_point start;
  std::string received;
};

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// In the child: run the job, report, and leave without running the parent's
// atexit handlers or flushing its stdio buffers.
[[noreturn]] void ChildMain(const Job& job, size_t index, int write_fd) {
  const int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
  }
  std::string report;
  try {
    std::optional<std::string> failure = job(index);
    report = failure ? "F" + *failure : "P";
  } catch (const std::exception& e) {
    report = std::string("F") + e.what();
  } catch (...) {
    report = "Fan exception that is not a std::exception";
  }
  WriteAll(write_fd, report);
  close(write_fd);
  _exit(0);
}

Child Start(const Job& job, size_t index) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    ChildMain(job, index, fds[1]);
  }
  close(fds[1]);
  return Child{index, pid, fds[0], Clock::now(), {}};
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The result of a child whose pipe reached end of file (or that was killed).
JobResult Reap(Child& child, bool timed_out, double timeout_seconds) {
  if (timed_out) kill(child.pid, SIGKILL);
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  close(child.pipe_fd);
  JobResult result;
  result.seconds = SecondsSince(child.start);
  if (timed_out) {
    result.message = fmt::format("timed out after {:.0f} s", timeout_seconds);
  } else if (WIFSIGNALED(status)) {
    result.message = fmt::format("crashed: signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  } else if (child.received.empty()) {
    result.message = fmt::format("exited with status {} without reporting a result", WEXITSTATUS(status));
  } else {
    result.passed = child.received[0] == 'P';
    result.message = child.received.substr(1);
  }
  return result;
}

}  // namespace

void RunIsolated(size_t count, const Job& job, int workers, double timeout_seconds,
                 const std::function<void(size_t, const JobResult&)>& done) {
  std::vector<Child> running;
  size_t next = 0;
  while (next < count || !running.empty()) {
    while (next < count && running.size() < static_cast<size_t>(std::max(workers, 1))) {
      running.push_back(Start(job, next++));
    }
    // Wait for output from any child, at most until the earliest deadline.
    double wait_seconds = timeout_seconds;
    std::vector<pollfd> fds;
    for (const Child& child : running) {
      fds.push_back({child.pipe_fd, POLLIN, 0});
      wait_seconds = std::min(wait_seconds, timeout_seconds - SecondsSince(child.start));
    }
    const int wait_ms = std::max(0, static_cast<int>(wait_seconds * 1000) + 1);
    if (poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) {
      throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
    }
    for (size_t i = running.size(); i-- > 0;) {
      Child& child = running[i];
      bool finished = false;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buffer[4096];
        const ssize_t n = read(child.pipe_fd, buffer, sizeof buffer);
        if (n > 0) {
          child.received.append(buffer, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          finished = true;
        }
      }
      const bool timed_out = !finished && SecondsSince(child.start) >= timeout_seconds;
      if (finished || timed_out) {
        const JobResult result = Reap(child, timed_out, timeout_seconds);
        const size_t index = child.index;
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        done(index, result);
      }
    }
  }
}

}  // namespace ge::conformance

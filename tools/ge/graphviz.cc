#include "graphviz.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/core.h>

#include "ge/error.h"

extern char** environ;

namespace ge::cli {
namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// An unnamed temporary file (deleted when closed), so no name of ours can
// ever appear in the user's folders or in a message.
File AnonymousFile() {
  File file(std::tmpfile());
  if (!file) {
    throw Error(ErrorCode::kIoError,
                fmt::format("cannot create a temporary file for Graphviz: {}", std::strerror(errno)));
  }
  return file;
}

std::string ReadAll(int fd) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buffer, static_cast<size_t>(n));
  }
}

// What dot said on stderr, its first line, for the error message.
std::string FirstLine(std::FILE* file) {
  std::rewind(file);
  char line[512] = {};
  if (std::fgets(line, sizeof(line), file) == nullptr) return "";
  line[std::strcspn(line, "\r\n")] = '\0';
  return line;
}

int WaitFor(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::string RenderDot(const std::string& dot_text, const std::string& format) {
  // dot reads the graph from one file and writes its complaints to another
  // while this process drains the picture from a pipe: no side can block.
  File input = AnonymousFile();
  File errors = AnonymousFile();
  if (std::fwrite(dot_text.data(), 1, dot_text.size(), input.get()) != dot_text.size() ||
      std::fflush(input.get()) != 0) {
    throw Error(ErrorCode::kIoError,
                fmt::format("cannot write a temporary file for Graphviz: {}", std::strerror(errno)));
  }
  std::rewind(input.get());
  int picture[2];
  if (::pipe2(picture, O_CLOEXEC) != 0) {
    throw Error(ErrorCode::kIoError, fmt::format("cannot start Graphviz's dot: {}", std::strerror(errno)));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fileno(input.get()), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, picture[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fileno(errors.get()), STDERR_FILENO);
  const std::string type_flag = "-T" + format;
  char* argv[] = {const_cast<char*>("dot"), const_cast<char*>(type_flag.c_str()), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "dot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(picture[1]);
  if (spawned != 0) {
    ::close(picture[0]);
    if (spawned == ENOENT) {
      throw Error(ErrorCode::kNotFound,
                  "Graphviz's 'dot' is not installed (apt-get install graphviz); -o FILE.dot writes the graph "
                  "without it");
    }
    throw Error(ErrorCode::kIoError, fmt::format("cannot start Graphviz's dot: {}", std::strerror(spawned)));
  }
  std::string rendered = ReadAll(picture[0]);
  ::close(picture[0]);
  const int status = WaitFor(pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string complaint = FirstLine(errors.get());
    throw Error(ErrorCode::kIoError, fmt::format("Graphviz's 'dot {}' failed{}{}", type_flag,
                                                 complaint.empty() ? "" : ": ", complaint));
  }
  return rendered;
}

}  // namespace ge::cli

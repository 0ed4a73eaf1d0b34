#include "file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::cli {
namespace {

[[noreturn]] void CannotWrite(const std::string& path, int error) {
  throw Error(ErrorCode::kIoError, fmt::format("cannot write {}: {}", path, std::strerror(error)));
}

// Writes all of `contents` to `fd`, retrying short writes; 0 or the errno of the failure.
int WriteAll(int fd, const std::string& contents) {
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno != EINTR) return errno;
    if (n > 0) written += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  // Next to `path`, so that the rename stays on one file system and is atomic.
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) CannotWrite(path, errno);
  int error = WriteAll(fd, contents);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    std::remove(temp.c_str());
    CannotWrite(path, error);
  }
}

void CreateOutputDirectory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    throw Error(ErrorCode::kIoError, fmt::format("cannot create directory {}: {}", dir, error.message()));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw Error(ErrorCode::kIoError, fmt::format("cannot write into directory {}: {}", dir, std::strerror(errno)));
  }
}

}  // namespace ge::cli

#include "file_checks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::cli {
namespace {

[[noreturn]] void CannotRead(const std::string& path, int error) {
  throw Error(error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError,
              fmt::format("cannot read {}: {}", path, std::strerror(error)));
}

}  // namespace

void CheckReadableFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) CannotRead(path, errno);
  struct stat info {};
  const int error = ::fstat(fd, &info) != 0 ? errno : S_ISDIR(info.st_mode) ? EISDIR : 0;
  ::close(fd);
  if (error != 0) CannotRead(path, error);
}

size_t FileSize(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) CannotRead(path, errno);
  return static_cast<size_t>(info.st_size);
}

}  // namespace ge::cli

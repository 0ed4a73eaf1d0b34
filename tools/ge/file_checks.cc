#include "file_checks.h"

#include <sys/stat.h>

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

size_t FileSize(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) CannotRead(path, errno);
  return static_cast<size_t>(info.st_size);
}

}  // namespace ge::cli

#include "graph/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/escape_for_message.h"

namespace ge {
namespace {

[[noreturn]] void Throw(ErrorCode code, std::string_view path, std::string_view what, std::string_view reason) {
  // The path and `what` may quote names from other files (a model's external data): escaped to stay one line.
  throw Error(code, EscapeForMessage(fmt::format("{}: cannot read {}: {}", path, what, reason)));
}

// What a file that is not a regular one is, for the error.
const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

std::string Size(uint64_t bytes) {
  return bytes % (1 << 20) == 0 ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} bytes", bytes);
}

}  // namespace

RegularFile RegularFile::Open(const std::string& path, std::string_view what) {
  // O_NONBLOCK: opening a FIFO that has no writer would otherwise wait for
  // one. Reads of a regular file ignore the flag.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    Throw(error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError, path, what, std::strerror(error));
  }
  RegularFile file(fd, 0, path, std::string(what));
  struct stat info {};
  if (::fstat(fd, &info) != 0) file.Fail(std::strerror(errno));
  if (!S_ISREG(info.st_mode)) file.Fail(fmt::format("it is {}, not a regular file", KindOf(info.st_mode)));
  file.size_ = static_cast<uint64_t>(info.st_size);
  return file;
}

RegularFile::RegularFile(RegularFile&& other) noexcept
    : fd_(other.fd_), size_(other.size_), path_(std::move(other.path_)), what_(std::move(other.what_)) {
  other.fd_ = -1;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

void RegularFile::ReadAt(uint64_t offset, void* out, size_t bytes) const {
  auto* cursor = static_cast<char*>(out);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd_, cursor, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) Fail(std::strerror(errno));
    if (got == 0) Fail(fmt::format("the file ended at byte {}, before the {} bytes expected there", offset, bytes));
    cursor += got;
    offset += static_cast<uint64_t>(got);
    bytes -= static_cast<size_t>(got);
  }
}

void RegularFile::Fail(const std::string& reason) const { Throw(ErrorCode::kIoError, path_, what_, reason); }

std::string ReadRegularFile(const std::string& path, std::string_view what, uint64_t max_bytes) {
  const RegularFile file = RegularFile::Open(path, what);
  const auto too_large = [&] {
    file.Fail(fmt::format("it has more than {}, the most a {} may have", Size(max_bytes), what));
  };
  if (file.size() > max_bytes) too_large();
  // Read to the end rather than to the size seen at open, one byte past the
  // cap at most: a file that grows meanwhile is still bounded.
  std::string text(file.size() + 1, '\0');
  size_t length = 0;
  for (;;) {
    if (length == text.size()) {
      if (length > max_bytes) too_large();
      text.resize(std::min<uint64_t>(2 * length, max_bytes + 1));
    }
    const ssize_t got = ::read(file.fd(), text.data() + length, text.size() - length);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) file.Fail(std::strerror(errno));
    if (got == 0) break;
    length += static_cast<size_t>(got);
  }
  text.resize(length);
  return text;
}

}  // namespace ge

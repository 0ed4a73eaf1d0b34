#include "graph/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge {
namespace {

[[noreturn]] void ReadFailed(const std::string& path, int error) {
  throw Error(error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError,
              fmt::format("{}: cannot read model file: {}", path, std::strerror(error)));
}

// Closes the descriptor on every path out of Open: the mapping does not need it.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() { ::close(fd); }
};

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ReadFailed(path, errno);
  const FileDescriptor guard{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) ReadFailed(path, errno);
  if (!S_ISREG(info.st_mode)) {
    throw Error(ErrorCode::kIoError, fmt::format("{}: cannot read model file: not a regular file", path));
  }
  const size_t size = static_cast<size_t>(info.st_size);
  if (size == 0) return std::shared_ptr<const MappedFile>(new MappedFile(nullptr, 0));
  // Private and read-only: pages are shared with the page cache and with
  // other processes that map the same file.
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapped == MAP_FAILED) ReadFailed(path, errno);
  return std::shared_ptr<const MappedFile>(new MappedFile(static_cast<const uint8_t*>(mapped), size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

bool MappedFile::Contains(const void* address) const {
  const auto* byte = static_cast<const uint8_t*>(address);
  return data_ != nullptr && byte >= data_ && byte < data_ + size_;
}

void MappedFile::ReleasePages(const void* address, size_t bytes) const {
  if (!Contains(address) || bytes == 0) return;
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(address);
  const uintptr_t end = std::min(begin + bytes, reinterpret_cast<uintptr_t>(data_ + size_));
  const uintptr_t first = (begin + page - 1) / page * page;  // pages shared with a neighbour stay
  const uintptr_t last = end / page * page;
  // Advice only: a failure leaves the pages resident, which is still correct.
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace ge

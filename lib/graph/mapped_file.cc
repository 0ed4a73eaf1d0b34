#include "graph/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "graph/regular_file.h"

namespace ge {

std::shared_ptr<const MappedFile> MappedFile::Open(const std::string& path) {
  const RegularFile file = RegularFile::Open(path, "model file");
  const size_t size = static_cast<size_t>(file.size());
  if (size == 0) return std::shared_ptr<const MappedFile>(new MappedFile(nullptr, 0));
  // Private and read-only: pages are shared with the page cache and with
  // other processes that map the same file. The mapping outlives the descriptor.
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (mapped == MAP_FAILED) file.Fail(std::strerror(errno));
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

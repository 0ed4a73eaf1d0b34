// A whole file mapped read-only. Model files are read through it so that
// their weights cost no private copy: pages come from the page cache on first
// touch, and pages whose contents were copied elsewhere (weights a kernel
// re-laid-out) can be handed back to keep the process's resident set small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ge {

class MappedFile {
 public:
  // Throws ge::Error (kNotFound, kIoError) naming the path: "PATH: cannot read
  // model file: REASON", also for what is not a regular file (RegularFile::Open).
  // An empty file maps to size() == 0, data() == nullptr.
  static std::shared_ptr<const MappedFile> Open(const std::string& path);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool Contains(const void* address) const;

  // Drops the resident pages that lie wholly inside [address, address + bytes)
  // of this mapping; the next touch reads them again from the page cache. The
  // contents never change, so concurrent readers are unaffected.
  void ReleasePages(const void* address, size_t bytes) const;

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  const uint8_t* data_;
  size_t size_;
};

}  // namespace ge

// Every file a user names (models, .npy data, ini and list files, quantization
// configs and records, external data) is opened through here, so that what is
// not a regular file is refused at once with one error naming the path and
// what it is: a FIFO would block the open or the read forever, /dev/zero or
// /dev/urandom would be read until memory runs out, a directory reads as
// nothing. Text files are read whole only up to a cap per kind of file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace ge {

// The most bytes an ini, list or config text file may have: far more than
// any real one, small enough that a wrong file fails at once.
inline constexpr uint64_t kMaxConfigFileBytes = uint64_t{16} << 20;

class RegularFile {
 public:
  // Opens `path` read-only. `what` names the kind of file for errors
  // ("model file", ".npy file", "quant config file"). Throws ge::Error
  // "PATH: cannot read WHAT: REASON": kNotFound when it does not exist,
  // kIoError when it cannot be opened or is not a regular file (the reason
  // says what it is: "a FIFO (named pipe), not a regular file").
  static RegularFile Open(const std::string& path, std::string_view what);

  RegularFile(RegularFile&& other) noexcept;
  RegularFile& operator=(RegularFile&&) = delete;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();

  int fd() const { return fd_; }
  // The size when it was opened.
  uint64_t size() const { return size_; }

  // Reads exactly `bytes` at `offset`. Throws kIoError "PATH: cannot read
  // WHAT: ..." when a read fails or the file ends first.
  void ReadAt(uint64_t offset, void* out, size_t bytes) const;

  // Throws kIoError "PATH: cannot read WHAT: REASON".
  [[noreturn]] void Fail(const std::string& reason) const;

 private:
  RegularFile(int fd, uint64_t size, std::string path, std::string what)
      : fd_(fd), size_(size), path_(std::move(path)), what_(std::move(what)) {}

  int fd_;
  uint64_t size_;
  std::string path_;
  std::string what_;
};

// The whole of the regular file `path`. Throws as RegularFile::Open does, and
// kIoError "PATH: cannot read WHAT: it has more than N MiB (the most a WHAT may
// have)" when it is larger than `max_bytes`, without reading past the cap.
std::string ReadRegularFile(const std::string& path, std::string_view what, uint64_t max_bytes);

}  // namespace ge

// The .npy reader (inputs of `ge run`, calibration data). It reads files, so
// each input is written to one scratch file first.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_target.h"
#include "ge/error.h"
#include "graph/npy.h"

namespace {

const std::string& ScratchFile() {
  static const std::string path = [] {
    // In memory where there is a tmpfs: a million writes should not reach a disk.
    std::string name = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm/ge_fuzz_npy_XXXXXX" : "/tmp/ge_fuzz_npy_XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0) std::abort();
    ::close(fd);
    std::atexit([] { std::remove(ScratchFile().c_str()); });
    return name;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = ScratchFile();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(data, 1, size, file) != size || std::fclose(file) != 0) std::abort();
  try {
    ge::ReadNpy(path);
  } catch (const ge::Error& error) {
    ge::fuzz::NoteRefusal(error);
  }
  return 0;
}

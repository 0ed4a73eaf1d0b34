#include "file_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "ge/error.h"

namespace ge::cli {

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << contents;
    out.flush();
    if (!out) {
      const int error = errno;
      std::remove(temp.c_str());
      throw Error(ErrorCode::kIoError, fmt::format("{}: cannot write: {}", path, std::strerror(error)));
    }
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) {
    std::remove(temp.c_str());
    throw Error(ErrorCode::kIoError, fmt::format("{}: cannot write: {}", path, error.message()));
  }
}

}  // namespace ge::cli

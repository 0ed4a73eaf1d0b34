#include "output_file_name.h"

namespace ge::cli {

std::string OutputFileName(const std::string& output_name) {
  std::string name = output_name;
  for (char& c : name) {
    const bool safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    if (!safe) c = '_';
  }
  return name + ".npy";
}

}  // namespace ge::cli

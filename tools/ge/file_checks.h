// The size of a file a command has written, for its report; files that are
// read go through graph/regular_file.h.
#pragma once

#include <cstddef>
#include <string>

namespace ge::cli {

// The size in bytes of a file the command has just written, for its report.
// Throws ge::Error "cannot read PATH: <reason>".
size_t FileSize(const std::string& path);

}  // namespace ge::cli

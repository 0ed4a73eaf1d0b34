// Checks of the files a user names (models, .npy inputs) before ge reads them,
// so that a failure is one line with the user's path and the system's reason
// rather than whatever the reader that trips over it would say.
#pragma once

#include <cstddef>
#include <string>

namespace ge::cli {

// Throws ge::Error "cannot read PATH: <reason>" unless this process can open
// `path` and it is not a directory: kNotFound for a missing file, kIoError
// otherwise (a directory is "Is a directory").
void CheckReadableFile(const std::string& path);

// The size in bytes of a file the command has just written, for its report.
// Throws ge::Error "cannot read PATH: <reason>".
size_t FileSize(const std::string& path);

}  // namespace ge::cli

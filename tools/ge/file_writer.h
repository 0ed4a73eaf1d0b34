// Files the `ge` commands write besides models (pictures, traces).
#pragma once

#include <string>

namespace ge::cli {

// Writes `<path>.tmp` and renames it to `path`, so that a failure leaves no
// half-written file. Throws ge::Error (kIoError) naming the path.
void WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace ge::cli

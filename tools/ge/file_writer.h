// Files the `ge` commands write besides models (pictures, traces, reports).
// Errors are ge::Error (kIoError) "cannot write PATH: <reason>", naming the
// path the user gave, never a temporary file.
#pragma once

#include <string>

namespace ge::cli {

// Writes `<path>.tmp` and renames it to `path`, so that a failure leaves no
// half-written file.
void WriteFileAtomically(const std::string& path, const std::string& contents);

// Creates `dir` and its parents as needed and checks that files can be
// created in it, so that writing into it fails here with the reason.
void CreateOutputDirectory(const std::string& dir);

}  // namespace ge::cli

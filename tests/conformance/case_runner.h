// Runs one conformance case in the calling process: import model.onnx,
// compile, and for every test_data_set_N bind input_*.pb, run and compare
// with output_*.pb.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "ge/compiled_model.h"
#include "tensor_compare.h"

namespace ge::conformance {

// nullopt when every data set matches; otherwise what went wrong first
// (import, compile or run errors as "<stage>: <message>", mismatches as
// "test_data_set_0: output 0 'y': <difference>"). Throws whatever ge throws;
// the caller isolates the case. `options` go to the compile (with one intra-op
// thread unless they say otherwise).
std::optional<std::string> RunCase(const std::filesystem::path& case_dir, const Tolerance& tolerance,
                                   const Options& options = {});

}  // namespace ge::conformance

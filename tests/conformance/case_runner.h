// Runs one conformance case in the calling process: import model.onnx,
// compile, and for every test_data_set_N bind input_*.pb, run and compare
// with output_*.pb.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <optional>
#include <string>

#include "ge/compiled_model.h"
#include "tensor_compare.h"

namespace ge::conformance {

// A value of a test data file (input_N.pb, output_N.pb).
struct TestValue {
  std::string name;  // the proto's name, often the model value's name; may be empty
  Tensor value;
};

// Reads a test data file that holds a value of the model's declared `type`:
// an onnx::TensorProto, or for a sequence or optional type an
// onnx::SequenceProto or OptionalProto, converted recursively (the file itself
// does not say which proto it is; ONNX's backend test runner decides by the
// type too). Sequences and optionals take the declared element dtype, which
// empty ones have no other way to tell. Throws ge::Error naming the file.
TestValue ReadTestValue(const std::filesystem::path& file, const onnx::TypeProto& type);

// nullopt when every data set matches; otherwise what went wrong first
// (import, compile or run errors as "<stage>: <message>", mismatches as
// "test_data_set_0: output 0 'y': <difference>"). Throws whatever ge throws;
// the caller isolates the case. `options` go to the compile (with one intra-op
// thread unless they say otherwise).
std::optional<std::string> RunCase(const std::filesystem::path& case_dir, const Tolerance& tolerance,
                                   const Options& options = {});

}  // namespace ge::conformance

#include "case_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <regex>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/onnx_importer.h"
#include "graph/onnx/onnx_tensor.h"

namespace ge::conformance {
namespace {

namespace fs = std::filesystem;

struct NamedTensor {
  std::string name;  // the TensorProto's name, often the model value's name; may be empty
  Tensor tensor;
};

// `prefix`_0.pb, `prefix`_1.pb, ... of a data set, in index order.
std::vector<NamedTensor> ReadTensors(const fs::path& data_set, const std::string& prefix) {
  std::vector<std::pair<int, fs::path>> files;
  const std::regex pattern(prefix + "_([0-9]+)\\.pb");
  for (const auto& entry : fs::directory_iterator(data_set)) {
    std::smatch match;
    const std::string file = entry.path().filename().string();
    if (std::regex_match(file, match, pattern)) files.emplace_back(std::stoi(match[1]), entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<NamedTensor> tensors;
  for (const auto& [index, path] : files) {
    std::ifstream in(path, std::ios::binary);
    onnx::TensorProto proto;
    if (!in || !proto.ParseFromIstream(&in)) {
      throw Error(ErrorCode::kIoError, fmt::format("{}: not a TensorProto", path.string()));
    }
    tensors.push_back({proto.name(), onnx_import::TensorFromOnnx(proto, path.string())});
  }
  return tensors;
}

// numpy has no bfloat16, so the ONNX test data stores bfloat16 tensors as
// uint16 bit patterns; such a tensor takes the dtype the model says.
Tensor WithDeclaredDtype(Tensor tensor, DataType declared) {
  if (tensor.dtype() != DataType::kUInt16 || declared != DataType::kBFloat16) return tensor;
  Tensor converted(DataType::kBFloat16, tensor.shape());
  std::memcpy(converted.data(), tensor.data(), tensor.nbytes());
  return converted;
}

// The data set's inputs in the order of model.inputs(): by name when every
// file names a model input, else by position (the data sets list the graph
// inputs that have no initializer, in graph order).
std::vector<Tensor> BindInputs(const CompiledModel& model, std::vector<NamedTensor> given) {
  const auto& inputs = model.inputs();
  if (given.size() != inputs.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("the data set has {} inputs, the compiled model {}", given.size(), inputs.size()));
  }
  const bool by_name = std::all_of(given.begin(), given.end(), [&](const NamedTensor& t) {
    return std::any_of(inputs.begin(), inputs.end(), [&](const TensorInfo& info) { return info.name == t.name; });
  });
  std::vector<Tensor> bound;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto it = by_name ? std::find_if(given.begin(), given.end(),
                                     [&](const NamedTensor& t) { return t.name == inputs[i].name; })
                      : given.begin() + static_cast<std::ptrdiff_t>(i);
    bound.push_back(WithDeclaredDtype(std::move(it->tensor), inputs[i].dtype));
  }
  return bound;
}

std::vector<fs::path> DataSets(const fs::path& case_dir) {
  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(case_dir)) {
    if (entry.is_directory() && entry.path().filename().string().starts_with("test_data_set_")) {
      sets.push_back(entry.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

// Runs `step`; a ge::Error or other exception becomes "<stage>: <message>".
template <typename Step>
auto Stage(const char* stage, Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {}", stage, e.what()));
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: {}", stage, e.what()));
  }
}

}  // namespace

std::optional<std::string> RunCase(const fs::path& case_dir, const Tolerance& tolerance, const Options& options) {
  auto graph = Stage("import", [&] { return ImportOnnxFile((case_dir / "model.onnx").string()); });
  // One intra-op thread: the runner already runs cases in parallel processes.
  auto model = Stage("compile", [&] {
    Options compile_options = options;
    compile_options.emplace("ge.exec.intraOpThreads", "1");  // kept when the caller set it
    return CompiledModel::Compile(std::move(graph), compile_options);
  });
  for (const fs::path& data_set : DataSets(case_dir)) {
    const std::string set_name = data_set.filename().string();
    std::vector<NamedTensor> expected = ReadTensors(data_set, "output");
    std::vector<Tensor> inputs = BindInputs(*model, ReadTensors(data_set, "input"));
    std::vector<Tensor> outputs = Stage("run", [&] { return model->Run(inputs); });
    if (outputs.size() != expected.size()) {
      return fmt::format("{}: {} outputs, expected {}", set_name, outputs.size(), expected.size());
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor want = WithDeclaredDtype(std::move(expected[i].tensor), outputs[i].dtype());
      if (auto difference = CompareTensors(outputs[i], want, tolerance)) {
        return fmt::format("{}: output {} '{}': {}", set_name, i, model->outputs()[i].name, *difference);
      }
    }
  }
  return std::nullopt;
}

}  // namespace ge::conformance

#include "input_tensors.h"

#include <algorithm>
#include <optional>
#include <random>
#include <type_traits>

#include <fmt/core.h>

#include "args.h"
#include "ge/error.h"
#include "graph/closest_name.h"
#include "graph/npy.h"
#include "graph/shape_accepts.h"
#include "tensor_values.h"

namespace ge::cli {
namespace {

// Small non-negative integers are valid for the usual integer inputs (indices,
// token ids, masks) of any model with at least four entries per axis.
constexpr int kMaxRandomInteger = 3;

Tensor RandomTensor(const TensorInfo& info, std::mt19937& engine) {
  if (!info.shape.IsStatic()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("input '{}' has the dynamic shape {}; give its data with --input {}=FILE.npy", info.name,
                            info.shape.ToString(), info.name));
  }
  Tensor tensor(info.dtype, info.shape);
  const size_t count = static_cast<size_t>(tensor.num_elements());
  const bool filled = VisitPlainType(info.dtype, [&](auto zero) {
    using T = decltype(zero);
    T* data = tensor.data_as<T>();
    if constexpr (std::is_floating_point_v<T>) {
      std::uniform_real_distribution<T> dist(T(-1), T(1));
      for (size_t i = 0; i < count; ++i) data[i] = dist(engine);
    } else {
      std::uniform_int_distribution<int> dist(0, std::is_same_v<T, bool> ? 1 : kMaxRandomInteger);
      for (size_t i = 0; i < count; ++i) data[i] = static_cast<T>(dist(engine));
    }
  });
  if (!filled) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("input '{}' has dtype {}, for which ge run makes no random data; give it with --input "
                            "{}=FILE.npy",
                            info.name, DataTypeName(info.dtype), info.name));
  }
  return tensor;
}

// Checked here rather than left to the run, whose error could not name the file.
Tensor ReadInputFile(const TensorInfo& info, const std::string& path) {
  Tensor tensor = ReadNpy(path);
  if (tensor.dtype() != info.dtype || !ShapeAccepts(info.shape, tensor.shape())) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("input '{}' from {}: expected {} {}, got {} {}", info.name, path, DataTypeName(info.dtype),
                            info.shape.ToString(), DataTypeName(tensor.dtype()), tensor.shape().ToString()));
  }
  return tensor;
}

// --input names something the model lacks: suggest the closest input, then list them all.
[[noreturn]] void UnknownInput(const std::string& name, const std::vector<TensorInfo>& inputs) {
  std::vector<std::string> names;
  std::string listed;
  for (const TensorInfo& info : inputs) {
    names.push_back(info.name);
    listed += (listed.empty() ? "'" : ", '") + info.name + "'";
  }
  const std::optional<std::string> closest = ClosestName(name, names);
  throw Error(ErrorCode::kNotFound,
              fmt::format("--input names '{}', which is not an input of the model; {}its inputs are {}", name,
                          closest ? fmt::format("did you mean '{}'? ", *closest) : "",
                          listed.empty() ? "none" : listed));
}

}  // namespace

std::map<std::string, std::string> InputFiles(const std::vector<std::string>& values) {
  std::map<std::string, std::string> files;
  for (const std::string& text : values) {
    auto [name, path] = SplitKeyValue(text, "input");
    auto [previous, added] = files.emplace(name, path);
    if (!added) {
      throw UsageError(fmt::format("--input '{}' is given twice ({} and {})", name, previous->second, path));
    }
  }
  return files;
}

std::vector<Tensor> MakeInputs(const std::vector<TensorInfo>& inputs, const std::map<std::string, std::string>& files,
                               uint32_t seed) {
  for (const auto& [name, path] : files) {
    const bool known = std::any_of(inputs.begin(), inputs.end(), [&](const TensorInfo& i) { return i.name == name; });
    if (!known) UnknownInput(name, inputs);
  }
  std::mt19937 engine(seed);
  std::vector<Tensor> tensors;
  for (const TensorInfo& info : inputs) {
    auto file = files.find(info.name);
    tensors.push_back(file != files.end() ? ReadInputFile(info, file->second) : RandomTensor(info, engine));
  }
  return tensors;
}

}  // namespace ge::cli

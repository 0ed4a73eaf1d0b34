#include "case_runner.h"

#include <fmt/format.h>
#include <onnx/onnx-data_pb.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <regex>
#include <unordered_set>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/onnx_importer.h"
#include "graph/onnx/onnx_tensor.h"

namespace ge::conformance {
namespace {

namespace fs = std::filesystem;

// Runs `step`; a ge::Error or other exception becomes "<stage>: <message>"
// (the stage of a case, or the file being read).
template <typename Step>
auto Stage(const std::string& stage, Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {}", stage, e.what()));
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: {}", stage, e.what()));
  }
}

// The file's content as a `Proto`: protobuf's wire format does not say which
// message it holds, so the caller does.
template <typename Proto>
Proto ParseFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  Proto proto;
  if (!in || !proto.ParseFromIstream(&in)) {
    throw Error(ErrorCode::kIoError, fmt::format("{}: not a {}", path.string(), Proto::descriptor()->name()));
  }
  return proto;
}

// The element dtype the model declares for a sequence or optional; undefined
// when the type says none (the elements are then refused as of another dtype).
DataType DeclaredElementDtype(const onnx::TypeProto& type) {
  const auto declared = onnx_import::ValueTypeFromOnnx(type);
  return declared ? declared->element_dtype : DataType::kUndefined;
}

// The elem_type a SequenceProto or OptionalProto holding values of the
// declared `element` type has (the two protos number their kinds alike).
onnx::SequenceProto::DataType ElemTypeOf(const onnx::TypeProto& element) {
  switch (element.value_case()) {
    case onnx::TypeProto::kTensorType: return onnx::SequenceProto::TENSOR;
    case onnx::TypeProto::kSparseTensorType: return onnx::SequenceProto::SPARSE_TENSOR;
    case onnx::TypeProto::kSequenceType: return onnx::SequenceProto::SEQUENCE;
    case onnx::TypeProto::kMapType: return onnx::SequenceProto::MAP;
    case onnx::TypeProto::kOptionalType: return onnx::SequenceProto::OPTIONAL;
    default: return onnx::SequenceProto::UNDEFINED;
  }
}

// A file whose elem_type is not the declared one would be read as wrong values.
void CheckElemType(int32_t elem_type, onnx::SequenceProto::DataType declared, const std::string& what) {
  if (elem_type == declared) return;
  throw Error(ErrorCode::kInvalidArgument,
              fmt::format("{}: elem_type {}, the model declares {}", what,
                          onnx::SequenceProto::DataType_Name(static_cast<onnx::SequenceProto::DataType>(elem_type)),
                          onnx::SequenceProto::DataType_Name(declared)));
}

Error UnsupportedElements(const char* container, onnx::SequenceProto::DataType elem_type, const std::string& what) {
  return Error(ErrorCode::kUnsupported, fmt::format("{}: {} of {} elements, which ge does not read", what, container,
                                                    onnx::SequenceProto::DataType_Name(elem_type)));
}

Tensor OptionalFromOnnx(const onnx::OptionalProto& proto, const onnx::TypeProto& type, const std::string& what);

// `type` is the model's declared sequence type; `what` names the file.
Tensor SequenceFromOnnx(const onnx::SequenceProto& proto, const onnx::TypeProto& type, const std::string& what) {
  const onnx::TypeProto& element_type = type.sequence_type().elem_type();
  const auto elem_type = ElemTypeOf(element_type);
  CheckElemType(proto.elem_type(), elem_type, what);
  std::vector<Tensor> elements;
  switch (elem_type) {
    case onnx::SequenceProto::TENSOR:
      for (const auto& tensor : proto.tensor_values()) elements.push_back(onnx_import::TensorFromOnnx(tensor, what));
      break;
    case onnx::SequenceProto::SEQUENCE:
      for (const auto& sequence : proto.sequence_values()) {
        elements.push_back(SequenceFromOnnx(sequence, element_type, what));
      }
      break;
    case onnx::SequenceProto::OPTIONAL:
      for (const auto& optional : proto.optional_values()) {
        elements.push_back(OptionalFromOnnx(optional, element_type, what));
      }
      break;
    default: throw UnsupportedElements("a sequence", elem_type, what);
  }
  return Stage(what, [&] { return Tensor::Sequence(DeclaredElementDtype(type), std::move(elements)); });
}

// `type` is the model's declared optional type; `what` names the file. An
// optional without a value is none; its elem_type may then be undefined.
Tensor OptionalFromOnnx(const onnx::OptionalProto& proto, const onnx::TypeProto& type, const std::string& what) {
  const onnx::TypeProto& element_type = type.optional_type().elem_type();
  const auto elem_type = ElemTypeOf(element_type);
  std::optional<Tensor> element;
  if (proto.has_tensor_value() || proto.has_sequence_value() || proto.has_sparse_tensor_value() ||
      proto.has_map_value() || proto.has_optional_value()) {
    CheckElemType(proto.elem_type(), elem_type, what);
    switch (elem_type) {
      case onnx::SequenceProto::TENSOR: element = onnx_import::TensorFromOnnx(proto.tensor_value(), what); break;
      case onnx::SequenceProto::SEQUENCE: element = SequenceFromOnnx(proto.sequence_value(), element_type, what); break;
      default: throw UnsupportedElements("an optional", elem_type, what);
    }
  }
  return Stage(what, [&] { return Tensor::Optional(DeclaredElementDtype(type), std::move(element)); });
}

// `prefix`_0.pb, `prefix`_1.pb, ... of a data set, in index order; file N
// holds a value of types[N].
std::vector<TestValue> ReadValues(const fs::path& data_set, const std::string& prefix,
                                  const std::vector<onnx::TypeProto>& types) {
  std::vector<std::pair<size_t, fs::path>> files;
  const std::regex pattern(prefix + "_([0-9]+)\\.pb");
  for (const auto& entry : fs::directory_iterator(data_set)) {
    std::smatch match;
    const std::string file = entry.path().filename().string();
    if (std::regex_match(file, match, pattern)) files.emplace_back(std::stoul(match[1]), entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<TestValue> values;
  for (const auto& [index, path] : files) {
    if (index >= types.size()) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: more {} files than the model's {} {}s",
                                                           path.string(), prefix, types.size(), prefix));
    }
    values.push_back(ReadTestValue(path, types[index]));
  }
  return values;
}

// The declared types of the values in a data set's files: input_N.pb holds
// graph input N of those without an initializer, output_N.pb graph output N.
struct DataFileTypes {
  std::vector<onnx::TypeProto> inputs;
  std::vector<onnx::TypeProto> outputs;
};

DataFileTypes ReadDataFileTypes(const fs::path& model_file) {
  const auto model = ParseFile<onnx::ModelProto>(model_file);
  std::unordered_set<std::string> initialized;
  for (const auto& initializer : model.graph().initializer()) initialized.insert(initializer.name());
  DataFileTypes types;
  for (const auto& input : model.graph().input()) {
    if (!initialized.count(input.name())) types.inputs.push_back(input.type());
  }
  for (const auto& output : model.graph().output()) types.outputs.push_back(output.type());
  return types;
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
std::vector<Tensor> BindInputs(const CompiledModel& model, std::vector<TestValue> given) {
  const auto& inputs = model.inputs();
  if (given.size() != inputs.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("the data set has {} inputs, the compiled model {}", given.size(), inputs.size()));
  }
  const bool by_name = std::all_of(given.begin(), given.end(), [&](const TestValue& t) {
    return std::any_of(inputs.begin(), inputs.end(), [&](const TensorInfo& info) { return info.name == t.name; });
  });
  std::vector<Tensor> bound;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto it = by_name ? std::find_if(given.begin(), given.end(),
                                     [&](const TestValue& t) { return t.name == inputs[i].name; })
                      : given.begin() + static_cast<std::ptrdiff_t>(i);
    bound.push_back(WithDeclaredDtype(std::move(it->value), inputs[i].dtype));
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

}  // namespace

TestValue ReadTestValue(const fs::path& file, const onnx::TypeProto& type) {
  const std::string what = file.string();
  if (type.has_sequence_type()) {
    const auto proto = ParseFile<onnx::SequenceProto>(file);
    return {proto.name(), SequenceFromOnnx(proto, type, what)};
  }
  if (type.has_optional_type()) {
    const auto proto = ParseFile<onnx::OptionalProto>(file);
    return {proto.name(), OptionalFromOnnx(proto, type, what)};
  }
  const auto proto = ParseFile<onnx::TensorProto>(file);
  return {proto.name(), onnx_import::TensorFromOnnx(proto, what)};
}

std::optional<std::string> RunCase(const fs::path& case_dir, const Tolerance& tolerance, const Options& options) {
  auto graph = Stage("import", [&] { return ImportOnnxFile((case_dir / "model.onnx").string()); });
  // One intra-op thread: the runner already runs cases in parallel processes.
  auto model = Stage("compile", [&] {
    Options compile_options = options;
    compile_options.emplace("ge.exec.intraOpThreads", "1");  // kept when the caller set it
    return CompiledModel::Compile(std::move(graph), compile_options);
  });
  const DataFileTypes types = ReadDataFileTypes(case_dir / "model.onnx");
  for (const fs::path& data_set : DataSets(case_dir)) {
    const std::string set_name = data_set.filename().string();
    std::vector<TestValue> expected = ReadValues(data_set, "output", types.outputs);
    std::vector<Tensor> inputs = BindInputs(*model, ReadValues(data_set, "input", types.inputs));
    std::vector<Tensor> outputs = Stage("run", [&] { return model->Run(inputs); });
    if (outputs.size() != expected.size()) {
      return fmt::format("{}: {} outputs, expected {}", set_name, outputs.size(), expected.size());
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor want = WithDeclaredDtype(std::move(expected[i].value), outputs[i].dtype());
      if (auto difference = CompareTensors(outputs[i], want, tolerance)) {
        return fmt::format("{}: output {} '{}': {}", set_name, i, model->outputs()[i].name, *difference);
      }
    }
  }
  return std::nullopt;
}

}  // namespace ge::conformance

#include "import_flags.h"

#include <map>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::cli {
namespace {

// The non-empty parts of `text` between separators.
std::vector<std::string> SplitOn(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(separator, start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// What a file of `format` is, for messages: "an ONNX model", "a Caffe net".
std::string ModelKind(ModelFormat format) {
  switch (format) {
    case ModelFormat::kTensorFlow: return "a TensorFlow model";
    case ModelFormat::kCaffe: return "a Caffe net";
    case ModelFormat::kGem: return "a compiled model (.gem)";
    default: return "an ONNX model";
  }
}

// ATC's framework numbers: 0 Caffe, 3 TensorFlow, 5 ONNX.
void CheckFramework(const std::string& value, ModelFormat format, const std::string& model_path) {
  if (value != "0" && value != "3" && value != "5") {
    throw UsageError(fmt::format("--framework '{}' is not valid (valid: 0 Caffe, 3 TensorFlow, 5 ONNX)", value));
  }
  const ModelFormat wanted = value == "0" ? ModelFormat::kCaffe : value == "3" ? ModelFormat::kTensorFlow : ModelFormat::kOnnx;
  if (format != wanted) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("--framework {} says {}, but '{}' is {}", value,
                                                         FrameworkName(wanted), model_path, ModelKind(format)));
  }
}

int64_t ParseDim(const std::string& text, const std::string& entry) {
  size_t used = 0;
  int64_t dim = 0;
  try {
    dim = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || dim < -1) {
    throw UsageError(fmt::format("--input_shape entry '{}': '{}' is not a dim (an integer >= 0, or -1)", entry, text));
  }
  return dim;
}

// ATC's --input_shape "name:1,224,224,3;name2:1,10": the placeholders' shapes.
std::map<std::string, Shape> ParseInputShapes(const std::string& value) {
  std::map<std::string, Shape> shapes;
  for (const std::string& entry : SplitOn(value, ';')) {
    const size_t colon = entry.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      throw UsageError(fmt::format("--input_shape entry '{}' is not NAME:DIMS (e.g. images:1,224,224,3)", entry));
    }
    std::vector<int64_t> dims;
    const std::string list = entry.substr(colon + 1);
    if (!list.empty()) {
      for (const std::string& dim : SplitOn(list, ',')) dims.push_back(ParseDim(dim, entry));
    }
    shapes[entry.substr(0, colon)] = Shape(std::move(dims));
  }
  return shapes;
}

}  // namespace

const char* FrameworkName(ModelFormat format) {
  switch (format) {
    case ModelFormat::kTensorFlow: return "TensorFlow";
    case ModelFormat::kCaffe: return "Caffe";
    case ModelFormat::kGem: return ".gem";
    default: return "ONNX";
  }
}

std::vector<FlagSpec> ImportFlags() {
  return {
      {"framework", "N", false, "ATC's framework of MODEL: 0 Caffe, 3 TensorFlow, 5 ONNX; checked against the file"},
      {"weight", "FILE.caffemodel", false, "a Caffe net's trained weights (default: MODEL's stem .caffemodel)"},
      {"input_shape", "\"NAME:D,D,..;...\"", false, "TensorFlow placeholders' shapes, for dims the model leaves unknown"},
      {"out_nodes", "\"NODE:I;...\"", false, "TensorFlow graph outputs (default: every node nothing reads)"}};
}

ImportChoices ImportChoicesFromArgs(const ParsedArgs& args, ModelFormat format, const std::string& model_path) {
  if (args.Has("framework")) CheckFramework(args.Value("framework"), format, model_path);
  for (const char* flag : {"input_shape", "out_nodes"}) {
    if (args.Has(flag) && format != ModelFormat::kTensorFlow) {
      throw UsageError(fmt::format("--{} applies to TensorFlow models; '{}' is {}", flag, model_path, ModelKind(format)));
    }
  }
  if (args.Has("weight") && format != ModelFormat::kCaffe) {
    throw UsageError(fmt::format("--weight applies to Caffe nets; '{}' is {}", model_path, ModelKind(format)));
  }
  ImportChoices choices;
  if (args.Has("input_shape")) choices.tf.input_shapes = ParseInputShapes(args.Value("input_shape"));
  if (args.Has("out_nodes")) choices.tf.output_nodes = SplitOn(args.Value("out_nodes"), ';');
  if (args.Has("weight")) choices.caffe_weights = args.Value("weight");
  return choices;
}

}  // namespace ge::cli

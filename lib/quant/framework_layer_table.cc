#include "quant/framework_layer_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>

#include "graph/framework_source.h"

namespace ge::quant {
namespace {

constexpr const char* kWeightSourceRule =
    "the weight input must not come from a placeholder or another dynamically changing node";
constexpr const char* kTwoTensorRule =
    "when both inputs are variable tensors, only INT8 symmetric quantization is supported";

bool FlagSet(const Node& node, const std::string& name) {
  const AttrValue* value = node.attrs().Find(name);
  return value != nullptr && std::holds_alternative<bool>(*value) && std::get<bool>(*value);
}

const std::vector<int64_t>& Dilations(const Node& node) { return node.attrs().GetInts("dilations"); }

bool AllOnes(const std::vector<int64_t>& values) {
  return std::all_of(values.begin(), values.end(), [](int64_t v) { return v == 1; });
}

std::string FilterRank(const Node& node, size_t filter_input, const std::string& layer) {
  const Value* filter = node.input(filter_input);
  if (filter == nullptr || filter->shape().rank() == 4) return {};
  return fmt::format("{} filter must be 4-D (filter is {})", layer, filter->shape().ToString());
}

std::string UnitDilation(const Node& node, const std::string& layer) {
  if (AllOnes(Dilations(node))) return {};
  return fmt::format("{} dilation must be 1 (dilations = [{}])", layer, fmt::join(Dilations(node), ", "));
}

// Conv3D's dilations are NCDHW: the depth is axis 2.
std::string UnitDepthDilation(const Node& node, const std::string& layer) {
  const std::vector<int64_t>& dilations = Dilations(node);
  if (node.op_type() != "Conv3D" || dilations.size() != 5 || dilations[2] == 1) return {};
  return fmt::format("{} needs dilation_d 1 (Conv3D dilations = [{}])", layer, fmt::join(dilations, ", "));
}

int64_t IntParam(const Node& node, const std::string& name, int64_t fallback) {
  const AttrValue* value = FindFrameworkParam(node, name);
  return value != nullptr && std::holds_alternative<int64_t>(*value) ? std::get<int64_t>(*value) : fallback;
}

bool BoolParam(const Node& node, const std::string& name) {
  const AttrValue* value = FindFrameworkParam(node, name);
  return value != nullptr && std::holds_alternative<bool>(*value) && std::get<bool>(*value);
}

// ONNX: the ge node is the ONNX node, so its attributes are the ONNX ones renamed.
std::string OnnxConv(const Node& node) { return UnitDepthDilation(node, "Conv with a 5-D filter"); }

std::string OnnxGemm(const Node& node) {
  return FlagSet(node, "transpose_x1") ? "Gemm transA must be false (MatMulV2 transpose_x1 = true)" : "";
}

std::string OnnxConvTranspose(const Node& node) {
  const std::string dilation = UnitDilation(node, "ConvTranspose");
  return !dilation.empty() ? dilation : FilterRank(node, 2, "ConvTranspose");
}

std::string OnnxAveragePool(const Node& node) {
  return FlagSet(node, "global_pooling")
             ? "AveragePool global pooling is not quantizable (AvgPoolV2 global_pooling = true)"
             : "";
}

// TensorFlow: the importer keeps these attributes under ge's names.
std::string TfMatMul(const Node& node) {
  for (const auto& [attr, tf_name] : {std::pair{"transpose_x1", "transpose_a"}, std::pair{"transpose_x2", "transpose_b"}}) {
    if (FlagSet(node, attr)) {
      return fmt::format("TensorFlow MatMul transpose_a and transpose_b must be False ({} = True)", tf_name);
    }
  }
  return {};
}

std::string TfBatchMatMul(const Node& node) {
  return FlagSet(node, "adj_x1") ? "TensorFlow BatchMatMulV2 adj_x must be False (adj_x = True)" : "";
}

std::string TfBackpropInput(const Node& node) { return UnitDilation(node, "TensorFlow Conv2DBackpropInput"); }

std::string TfConv3D(const Node& node) { return UnitDepthDilation(node, "TensorFlow Conv3D"); }

// Caffe: parameters the ge node does not show are kept as framework params.
std::string CaffeInnerProduct(const Node& node) {
  if (BoolParam(node, "transpose")) return "Caffe InnerProduct transpose must be false (transpose = true)";
  const int64_t axis = IntParam(node, "axis", 1);
  return axis == 1 ? "" : fmt::format("Caffe InnerProduct axis must be 1 (axis = {})", axis);
}

std::string CaffeConvolution(const Node& node) { return FilterRank(node, 1, "Caffe Convolution"); }

std::string CaffeDeconvolution(const Node& node) {
  const std::string dilation = UnitDilation(node, "Caffe Deconvolution");
  return !dilation.empty() ? dilation : FilterRank(node, 2, "Caffe Deconvolution");
}

// Caffe's PoolingParameter.PoolMethod: MAX 0, AVE 1.
std::string CaffePooling(const Node& node) {
  if (IntParam(node, "pool", 0) == 1 && BoolParam(node, "global_pooling")) {
    return "Caffe Pooling mode 1 (AVE) needs global_pooling false (global_pooling = true)";
  }
  return {};
}

// Caffe's EltwiseParameter.EltwiseOp: PROD 0, SUM 1, MAX 2.
std::string CaffeEltwise(const Node& node) {
  const int64_t operation = IntParam(node, "operation", 1);
  if (operation == 1) return {};
  return fmt::format("Caffe Eltwise operation must be 1 (SUM) (operation = {}, {})", operation,
                     operation == 0 ? "PROD" : "MAX");
}

// The forms a TensorFlow model may hold a table's op in: grappler fuses a
// BiasAdd and an activation into the convolutions and products of frozen
// graphs (every TensorFlow.js model has them), and AddV2 is Add's current
// spelling. The fused bias and activation do not change the layer's rules.
const std::map<std::string, std::string>& TfTableSpelling() {
  static const std::map<std::string, std::string> spelling = {
      {"_FusedConv2D", "Conv2D"},
      {"FusedDepthwiseConv2dNative", "DepthwiseConv2dNative"},
      {"_FusedMatMul", "MatMul"},
      {"AddV2", "Add"},
  };
  return spelling;
}

// The ONNX op an unmarked ge node was imported from.
const std::map<std::string, std::string>& OnnxOpOfGeOp() {
  static const std::map<std::string, std::string> ops = {
      {"Conv2D", "Conv"},          {"Conv3D", "Conv"},          {"MatMulV2", "Gemm"},
      {"Conv2DTranspose", "ConvTranspose"}, {"BatchMatMulV2", "MatMul"}, {"AvgPoolV2", "AveragePool"},
      {"MaxPoolV3", "MaxPool"},    {"MaxPool", "MaxPool"},      {"Add", "Add"},
  };
  return ops;
}

}  // namespace

const std::vector<LayerSupportRow>& LayerSupportTable() {
  static const std::vector<LayerSupportRow> table = {
      {"ONNX", "Conv", "Conv2D, Conv3D", fmt::format("a filter of 5 dims needs dilation_d = 1; {}", kWeightSourceRule),
       OnnxConv},
      {"ONNX", "Gemm", "MatMulV2", fmt::format("transA = false; {}", kWeightSourceRule), OnnxGemm},
      {"ONNX", "ConvTranspose", "Conv2DTranspose",
       fmt::format("dilation = 1 and a filter of 4 dims; {}", kWeightSourceRule), OnnxConvTranspose},
      {"ONNX", "MatMul", "BatchMatMulV2",
       fmt::format("a constant second input must be 2-D; {}; {}", kTwoTensorRule, kWeightSourceRule)},
      {"ONNX", "AveragePool", "AvgPoolV2", "global_pooling = false; shift N is not supported", OnnxAveragePool},
      {"ONNX", "MaxPool", "MaxPool, MaxPoolV3", "tensor quantization only"},
      {"ONNX", "Add", "Add", "tensor quantization only, of one input only"},
      {"TensorFlow", "MatMul", "MatMulV2",
       fmt::format("transpose_a, transpose_b, adjoint_a and adjoint_b = False; {}", kWeightSourceRule), TfMatMul},
      {"TensorFlow", "Conv2D", "Conv2D", kWeightSourceRule},
      {"TensorFlow", "DepthwiseConv2dNative", "DepthwiseConv2D", kWeightSourceRule},
      {"TensorFlow", "Conv2DBackpropInput", "Conv2DBackpropInput", fmt::format("dilation = 1; {}", kWeightSourceRule),
       TfBackpropInput},
      {"TensorFlow", "BatchMatMulV2", "BatchMatMulV2",
       fmt::format("adj_x = False; a constant second input must be 2-D; {}", kTwoTensorRule), TfBatchMatMul},
      {"TensorFlow", "AvgPool", "AvgPool", "shift N is not supported"},
      {"TensorFlow", "Conv3D", "Conv3D", "dilation_d = 1", TfConv3D},
      {"TensorFlow", "MaxPool", "MaxPool, MaxPoolV3", "tensor quantization only"},
      {"TensorFlow", "Add", "Add", "tensor quantization only, of one input only"},
      {"Caffe", "InnerProduct", "FullyConnection", "transpose = false; axis = 1", CaffeInnerProduct},
      {"Caffe", "Convolution", "Conv2D", "a filter of 4 dims", CaffeConvolution},
      {"Caffe", "Deconvolution", "Deconvolution", "dilation = 1 and a filter of 4 dims", CaffeDeconvolution},
      {"Caffe", "Pooling", "Pooling",
       "mode 1: full quantization (weight and tensor), global_pooling = false, shift N is not supported; "
       "mode 0: tensor quantization only",
       CaffePooling},
      {"Caffe", "Eltwise", "Eltwise", "tensor quantization only; operation = 1", CaffeEltwise},
  };
  return table;
}

// IPV350's rows are the TensorFlow and ONNX rows it keeps, with the same constraints.
const std::vector<LayerSupportRow>& Ipv350SupportTable() {
  static const std::vector<LayerSupportRow> table = [] {
    const std::vector<std::pair<std::string, std::string>> kept = {{"TensorFlow", "MatMul"},
                                                                   {"TensorFlow", "Conv2D"},
                                                                   {"TensorFlow", "Conv2DBackpropInput"},
                                                                   {"TensorFlow", "DepthwiseConv2dNative"},
                                                                   {"ONNX", "ConvTranspose"}};
    std::vector<LayerSupportRow> rows;
    for (const auto& [framework, op] : kept) {
      for (const LayerSupportRow& row : LayerSupportTable()) {
        if (row.framework == framework && row.framework_op == op) rows.push_back(row);
      }
    }
    return rows;
  }();
  return table;
}

namespace {

// The table that governs `framework`'s layers: IPV350's replaces TensorFlow's and ONNX's there.
const std::vector<LayerSupportRow>& TableFor(const std::string& framework, bool ipv350) {
  return ipv350 && framework != "Caffe" ? Ipv350SupportTable() : LayerSupportTable();
}

}  // namespace

LayerSource SourceOfLayer(const Node& node, bool ipv350) {
  LayerSource source;
  if (const std::optional<FrameworkSource> marked = FrameworkSourceOf(node)) {
    source.framework = marked->framework;
    source.op = marked->op;
  } else {
    source.framework = "ONNX";
    const auto onnx = OnnxOpOfGeOp().find(node.op_type());
    source.op = onnx != OnnxOpOfGeOp().end() ? onnx->second : node.op_type();
  }
  source.row = FindLayerRow(source.framework, source.op, ipv350);
  return source;
}

const LayerSupportRow* FindLayerRow(const std::string& framework, const std::string& op, bool ipv350) {
  std::string table_op = op;
  if (framework == "TensorFlow") {
    const auto spelling = TfTableSpelling().find(op);
    if (spelling != TfTableSpelling().end()) table_op = spelling->second;
  }
  for (const LayerSupportRow& row : TableFor(framework, ipv350)) {
    if (row.framework == framework && row.framework_op == table_op) return &row;
  }
  return nullptr;
}

bool ListedForItsFramework(const Node& node, const LayerSource& source) {
  // The layer's own node (helpers are named "<layer>#<suffix>").
  return source.framework == "Caffe" && source.op == "Eltwise" && node.name().find('#') == std::string::npos &&
         !CaffeEltwise(node).empty();
}

std::string FrameworkOpsList(const std::string& framework, bool ipv350) {
  std::vector<std::string> ops;
  for (const LayerSupportRow& row : TableFor(framework, ipv350)) {
    if (row.framework == framework) ops.push_back(row.framework_op);
  }
  const std::string table = ipv350 && framework != "Caffe" ? "IPV350's table for " + framework : framework + "'s table";
  return fmt::format("{}: {}", table, ops.empty() ? std::string("none") : fmt::format("{}", fmt::join(ops, ", ")));
}

}  // namespace ge::quant

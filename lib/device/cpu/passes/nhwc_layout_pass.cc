// Keeps the activations of CNNs in NHWC between the convolutions on the CPU.
//
// oneDNN's fast float32 convolutions (brgconv, the brdgmm depthwise kernel)
// read and write NHWC directly; on plain NCHW the CPU kernel either runs
// im2col + GEMM or pays two reorders per convolution. This pass moves every
// eligible node to NHWC and transposes only at the edges of the NHWC region
// (as CANN GE's heavy-format propagation inserts TransData):
//
//  - a float32 Conv2D that takes the kernel's float32 oneDNN path (constant
//    filter, exact-float32 mode, no quantization) is always converted; its x
//    (and a fused addend, graph/conv_post_ops.h) is transposed to NHWC when
//    no NHWC form of it exists yet; so is an int8 QuantConv2D (oneDNN's int8
//    kernels are channels-last too);
//  - a float32 MaxPoolV3 / AvgPoolV2, or an int8 MaxPoolV3, is converted
//    when its x exists in NHWC;
//  - a layout-agnostic op (unary elementwise, AscendQuant and AscendAntiQuant
//    with their per-tensor scales, ClipByValue, broadcasting binary ops, ConcatD, the constant-axes
//    reductions) is converted when all its activation inputs exist in NHWC,
//    constants being permuted to match.
//
// The nodes are visited in topological order and converted in place (they
// keep their names; their NHWC outputs are renamed "<name>/nhwc"), so a
// node's inputs are settled when it is visited. Afterwards every converted
// value that an unconverted node or a graph output still reads is rebuilt in
// NCHW by one transpose (graph outputs keep their name, shape and layout).
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "graph/conv_post_ops.h"
#include "graph/nhwc_values.h"
#include "device/cpu/passes/cpu_float_conv.h"
#include "device/cpu/passes/cpu_rewrite_passes.h"
#include "passes/graph_rewrite.h"

namespace ge::device::cpu {
namespace {

using passes::AttrOrDefault;
using passes::IsGraphOutput;
using passes::NodesWithControlDependents;

const std::vector<int64_t>& kToNhwc = kNchwToNhwc;
// Also the NHWC position of each NCHW axis: C (1) sits at 3, H (2) at 1, W (3) at 2.
const std::vector<int64_t>& kToNchw = kNhwcToNchw;

std::vector<int64_t> Permuted(const std::vector<int64_t>& values, const std::vector<int64_t>& perm) {
  std::vector<int64_t> out;
  for (int64_t axis : perm) out.push_back(values[axis]);
  return out;
}

bool IsRank4(const Value* value) {
  return value != nullptr && !value->shape().unknown_rank() && value->shape().rank() == 4;
}

template <typename T>
std::optional<T> AttrOf(const Node& node, const std::string& name) {
  const AttrValue* value = AttrOrDefault(node, name);
  if (value == nullptr || !std::holds_alternative<T>(*value)) return std::nullopt;
  return std::get<T>(*value);
}

bool IsNchw(const Node& node) { return AttrOf<std::string>(node, "data_format") == std::string("NCHW"); }

// A Conv2D the CPU kernel runs through the float32 oneDNN primitive, which
// alone reads NHWC, with a constant filter (a runtime one is read as OIHW).
bool IsNhwcConv(const Node& node) {
  if (!IsCpuFloat32Conv(node) || !IsNchw(node)) return false;
  const Value* filter = node.input(kConvFilter);
  if (!IsRank4(node.input(kConvX)) || !IsRank4(node.output(0)) || filter == nullptr ||
      filter->constant() == nullptr || filter->dtype() != DataType::kFloat) {
    return false;
  }
  const Value* addend = node.num_inputs() > kConvFusedAddend ? node.input(kConvFusedAddend) : nullptr;
  return addend == nullptr || IsRank4(addend);
}

// QuantConv2D always runs oneDNN's int8 convolution; its filter is a constant by schema.
bool IsNhwcQuantConv(const Node& node) {
  if (node.op_type() != "QuantConv2D" || !IsNchw(node) || node.num_outputs() != 1) return false;
  const Value* x = node.input(kConvX);
  const Value* filter = node.input(kConvFilter);
  return IsRank4(x) && x->dtype() == DataType::kInt8 && IsRank4(node.output(0)) && filter != nullptr &&
         filter->constant() != nullptr;
}

// Float32 max and average pooling, and int8 max pooling (between the int8
// convolutions of a quantized model); the CPU's int8 average keeps NCHW.
bool IsNhwcPool(const Node& node) {
  if ((node.op_type() != "MaxPoolV3" && node.op_type() != "AvgPoolV2") || node.num_outputs() != 1 ||
      node.num_inputs() != 1 || !IsNchw(node) || !IsRank4(node.input(0))) {
    return false;
  }
  const DataType dtype = node.input(0)->dtype();
  return dtype == DataType::kFloat || (dtype == DataType::kInt8 && node.op_type() == "MaxPoolV3");
}

// Elementwise ops of one input whose attributes name no axis.
bool IsUnaryElementwise(const std::string& op_type) {
  static const std::unordered_set<std::string> kOps = {"Relu",        "Abs",        "Neg",   "Sign",
                                                       "Ceil",        "Floor",      "Round", "Sigmoid",
                                                       "Tanh",        "Erf",        "Sqrt",  "Exp",
                                                       "Log",         "Reciprocal", "Gelu",  "LeakyRelu",
                                                       "Elu",         "Selu",       "Celu",  "ThresholdedRelu",
                                                       "HardSigmoid", "HardSwish",  "Mish",  "Softplus",
                                                       "Softsign",    "Shrink",     "Cast",  "AscendQuant",
                                                       "AscendAntiQuant"};
  return kOps.count(op_type) != 0;
}

bool IsBinaryElementwise(const std::string& op_type) {
  static const std::unordered_set<std::string> kOps = {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Pow"};
  return kOps.count(op_type) != 0;
}

bool IsAxesReduction(const std::string& op_type) {
  static const std::unordered_set<std::string> kOps = {"ReduceMeanD", "ReduceSumD", "ReduceMaxD", "ReduceMinD",
                                                       "ReduceProdD", "ReduceL1D",  "ReduceL2D"};
  return kOps.count(op_type) != 0;
}

// A value of one element whose rank does not exceed 4: it broadcasts the
// same way against NCHW and NHWC operands.
bool IsLayoutFreeScalar(const Value* value) {
  return value != nullptr && !value->shape().unknown_rank() && value->shape().rank() <= 4 &&
         value->shape().NumElements() == 1;
}

// The constant in NHWC: right-aligned to rank 4 (numpy broadcasting), then permuted.
Tensor ToNhwcConstant(const Tensor& constant) {
  std::vector<int64_t> dims = constant.shape().dims();
  dims.insert(dims.begin(), 4 - dims.size(), 1);
  return PermutedTensor(constant.Reshaped(Shape(std::move(dims))), kToNhwc);
}

class NhwcLayoutRewrite {
 public:
  explicit NhwcLayoutRewrite(Graph& graph) : graph_(graph), control_dependents_(NodesWithControlDependents(graph)) {}

  bool Run() {
    for (Node* node : graph_.TopologicalOrder()) {
      if (!node->control_inputs().empty() || control_dependents_.count(node) != 0) continue;
      if (IsNhwcConv(*node) || IsNhwcQuantConv(*node)) {
        ConvertConv(*node);
      } else if (IsNhwcPool(*node) && nhwc_.count(node->input(0)) != 0) {
        ConvertPool(*node);
      } else if (IsUnaryElementwise(node->op_type()) || node->op_type() == "ClipByValue") {
        ConvertUnary(*node);
      } else if (IsBinaryElementwise(node->op_type())) {
        ConvertBinary(*node);
      } else if (node->op_type() == "ConcatD") {
        ConvertConcat(*node);
      } else if (IsAxesReduction(node->op_type())) {
        ConvertReduction(*node);
      }
    }
    if (converted_.empty()) return false;
    RebuildNchwValues();
    return true;
  }

 private:
  // The NHWC form of an NCHW value, transposing it when there is none yet.
  Value* NhwcOf(Value* value) {
    auto found = nhwc_.find(value);
    if (found != nhwc_.end()) return found->second;
    Value* nhwc = AddTranspose(value, kToNhwc, value->name() + kNhwcSuffix);
    nhwc_.emplace(value, nhwc);
    return nhwc;
  }

  Value* AddTranspose(Value* value, const std::vector<int64_t>& perm, const std::string& name) {
    Node* transpose = graph_.AddNode("TransposeD", graph_.UniqueName(name), {value});
    transpose->attrs().Set("perm", perm);
    transpose->output(0)->set_dtype(value->dtype());
    transpose->output(0)->set_shape(PermutedShape(value->shape(), perm));
    return transpose->output(0);
  }

  // Rewires the node onto `inputs`, in place (it keeps its name); with
  // nhwc_output its output now holds the NHWC tensor.
  void Convert(Node& node, const std::vector<Value*>& inputs, bool nhwc_output) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (node.input(i) != inputs[i]) node.SetInput(i, inputs[i]);
    }
    converted_.insert(&node);
    if (!nhwc_output) return;
    Value* out = node.output(0);
    out->set_shape(PermutedShape(out->shape(), kToNhwc));
    nhwc_.emplace(out, out);
    nhwc_outputs_.push_back(out);
  }

  // Window attributes given in N, C, H, W order, restated in NHWC order.
  static void PermuteWindowAttrs(Node& node, std::initializer_list<const char*> names) {
    for (const char* name : names) {
      const AttrValue* value = AttrOrDefault(node, name);
      if (value != nullptr) node.attrs().Set(name, Permuted(std::get<std::vector<int64_t>>(*value), kToNhwc));
    }
    node.attrs().Set("data_format", std::string("NHWC"));
  }

  void ConvertConv(Node& conv) {
    std::vector<Value*> inputs = conv.inputs();
    inputs[kConvX] = NhwcOf(inputs[kConvX]);
    if (inputs.size() > kConvFusedAddend && inputs[kConvFusedAddend] != nullptr) {
      inputs[kConvFusedAddend] = NhwcOf(inputs[kConvFusedAddend]);
    }
    PermuteWindowAttrs(conv, {"strides", "dilations"});
    Convert(conv, inputs, /*nhwc_output=*/true);
  }

  void ConvertPool(Node& pool) {
    PermuteWindowAttrs(pool, {"ksize", "strides", "dilations"});
    Convert(pool, {nhwc_.at(pool.input(0))}, /*nhwc_output=*/true);
  }

  // Input 0 in NHWC; ClipByValue's other inputs are its scalar bounds.
  void ConvertUnary(Node& node) {
    auto found = nhwc_.find(node.input(0));
    if (found == nhwc_.end() || node.num_outputs() != 1) return;
    std::vector<Value*> inputs = node.inputs();
    inputs[0] = found->second;
    for (size_t i = 1; i < inputs.size(); ++i) {
      if (node.op_type() != "ClipByValue" || !IsLayoutFreeScalar(inputs[i])) return;
    }
    if (node.op_type() == "ClipByValue" && inputs.size() != 3) return;
    Convert(node, inputs, /*nhwc_output=*/true);
  }

  // Every operand in NHWC, a constant of rank <= 4 (permuted) or a
  // one-element value; the result is 4-D, so all operands broadcast alike
  // after the same permutation.
  void ConvertBinary(Node& node) {
    if (node.num_inputs() != 2 || node.num_outputs() != 1 || !IsRank4(node.output(0))) return;
    std::vector<Value*> inputs;
    std::vector<bool> in_nhwc;  // by operand: already has an NHWC version
    for (Value* input : node.inputs()) {
      if (input == nullptr) return;
      auto found = nhwc_.find(input);
      in_nhwc.push_back(found != nhwc_.end());
      if (found == nhwc_.end() && !IsLayoutFreeScalar(input) &&
          (input->constant() == nullptr || input->constant()->shape().rank() > 4)) {
        return;
      }
      inputs.push_back(found != nhwc_.end() ? found->second : input);
    }
    if (std::none_of(in_nhwc.begin(), in_nhwc.end(), [](bool b) { return b; })) return;
    for (size_t i = 0; i < inputs.size(); ++i) {
      // The others are constants (checked above): permuted copies of them.
      if (!in_nhwc[i] && !IsLayoutFreeScalar(inputs[i])) {
        inputs[i] = graph_.AddConstant(graph_.UniqueName(inputs[i]->name() + kNhwcSuffix),
                                       ToNhwcConstant(*inputs[i]->constant()));
      }
    }
    Convert(node, inputs, /*nhwc_output=*/true);
  }

  void ConvertConcat(Node& node) {
    const std::optional<int64_t> axis = AttrOf<int64_t>(node, "concat_dim");
    if (node.num_outputs() != 1 || node.num_inputs() == 0 || !IsRank4(node.output(0)) || !axis || *axis < -4 ||
        *axis >= 4) {
      return;
    }
    std::vector<Value*> inputs;
    for (Value* input : node.inputs()) {
      auto found = nhwc_.find(input);
      if (found == nhwc_.end()) return;
      inputs.push_back(found->second);
    }
    node.attrs().Set("concat_dim", kToNchw[(*axis + 4) % 4]);
    Convert(node, inputs, /*nhwc_output=*/true);
  }

  // The axes remapped to NHWC. With keep_dims the result is NHWC too;
  // without, it is the same tensor in both layouts when the kept axes keep
  // their relative order (reducing C, or H and W), and is left alone otherwise.
  void ConvertReduction(Node& node) {
    auto found = nhwc_.find(node.input(0));
    const std::optional<std::vector<int64_t>> axes = AttrOf<std::vector<int64_t>>(node, "axes");
    const std::optional<bool> keep_dims = AttrOf<bool>(node, "keep_dims");
    if (found == nhwc_.end() || node.num_inputs() != 1 || node.num_outputs() != 1 || !axes || !keep_dims) return;
    std::vector<bool> reduced(4, axes->empty());
    for (int64_t axis : *axes) {
      if (axis < -4 || axis >= 4) return;
      reduced[(axis + 4) % 4] = true;
    }
    std::vector<int64_t> nhwc_axes;
    for (int64_t axis = 0; axis < 4; ++axis) {
      if (reduced[axis] && !axes->empty()) nhwc_axes.push_back(kToNchw[axis]);
    }
    std::sort(nhwc_axes.begin(), nhwc_axes.end());
    if (!*keep_dims) {
      // NCHW axes kept, listed in NHWC order, must come out ascending.
      std::vector<int64_t> kept;
      for (int64_t axis : kToNhwc) {
        if (!reduced[axis]) kept.push_back(axis);
      }
      if (!std::is_sorted(kept.begin(), kept.end())) return;
    }
    node.attrs().Set("axes", nhwc_axes);
    Convert(node, {found->second}, /*nhwc_output=*/*keep_dims);
  }

  // An NHWC output is renamed "<name>/nhwc"; when an unconverted node or a
  // graph output reads it, one transpose rebuilds the NCHW tensor, which
  // keeps a graph output's name.
  void RebuildNchwValues() {
    for (Value* value : nhwc_outputs_) {
      const std::string name = value->name();
      value->set_name(graph_.UniqueName(name + kNhwcSuffix));
      std::vector<Use> outside;
      for (const Use& use : value->uses()) {
        if (converted_.count(use.node) == 0) outside.push_back(use);
      }
      const bool graph_output = IsGraphOutput(graph_, value);
      if (outside.empty() && !graph_output) continue;
      Value* nchw = AddTranspose(value, kToNchw, name + "/nchw");
      for (const Use& use : outside) use.node->SetInput(use.input_index, nchw);
      if (!graph_output) continue;
      nchw->set_name(name);
      std::vector<Value*> outputs = graph_.outputs();
      std::replace(outputs.begin(), outputs.end(), value, nchw);
      graph_.SetOutputs(std::move(outputs));
    }
  }

  Graph& graph_;
  std::unordered_set<const Node*> control_dependents_;
  std::unordered_map<const Value*, Value*> nhwc_;  // NCHW value -> its NHWC form (itself once converted)
  std::unordered_set<const Node*> converted_;
  std::vector<Value*> nhwc_outputs_;  // outputs of converted nodes that now hold NHWC tensors
};

class NhwcLayoutPass : public Pass {
 public:
  std::string name() const override { return "nhwc_layout"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    return NhwcLayoutRewrite(graph).Run();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeNhwcLayoutPass() { return std::make_unique<NhwcLayoutPass>(); }

}  // namespace ge::device::cpu

#include "ge/builder.h"

#include <fmt/core.h>

#include "graph/op_schema.h"
#include "graph/verifier.h"

namespace ge {
namespace {

std::vector<int64_t> Nchw(const std::array<int64_t, 2>& hw) { return {1, 1, hw[0], hw[1]}; }

std::vector<int64_t> Vector(const std::array<int64_t, 4>& values) { return {values.begin(), values.end()}; }

}  // namespace

GraphBuilder::GraphBuilder(std::string graph_name) : graph_(std::make_unique<Graph>(std::move(graph_name))) {}

GraphBuilder::~GraphBuilder() = default;

Graph& GraphBuilder::graph() {
  if (!graph_) throw Error(ErrorCode::kInvalidArgument, "GraphBuilder: the graph was already built; use a new builder");
  return *graph_;
}

std::string GraphBuilder::NodeName(const std::string& op_type, const std::string& requested) {
  if (!requested.empty()) {
    if (graph().FindNode(requested) != nullptr) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("graph '{}': node name '{}' is already used", graph().name(), requested));
    }
    return requested;
  }
  for (;;) {
    std::string candidate = fmt::format("{}_{}", op_type, name_counters_[op_type]++);
    if (graph().FindNode(candidate) == nullptr) return candidate;
  }
}

Value* GraphBuilder::Input(const std::string& name, DataType dtype, Shape shape) {
  if (dtype == DataType::kUndefined) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("GraphBuilder::Input('{}'): the dtype is undefined", name));
  }
  return graph().AddInput(NodeName("Data", name), dtype, std::move(shape));
}

Value* GraphBuilder::Constant(const std::string& name, Tensor value) {
  if (value.empty()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("GraphBuilder::Constant('{}'): the tensor is empty", name));
  }
  return graph().AddConstant(NodeName("Const", name), std::move(value));
}

std::vector<Value*> GraphBuilder::Op(const std::string& op_type, const std::vector<Value*>& inputs,
                                     const std::map<std::string, AttrValue>& attrs, size_t num_outputs,
                                     const std::string& name) {
  Graph& g = graph();
  const OpSchema* schema = OpRegistry::Global().Find(op_type);
  if (schema == nullptr) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("graph '{}': unknown op type '{}' (see docs/op-set.md for the op set)", g.name(), op_type));
  }
  const std::string node_name = NodeName(op_type, name);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != nullptr && inputs[i]->producer()->graph() != &g) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("node '{}' ({}): input {} ('{}') belongs to another graph",
                                                           node_name, op_type, i, inputs[i]->name()));
    }
  }
  Node* node = g.AddNode(op_type, node_name, inputs, num_outputs);
  for (const auto& [key, value] : attrs) node->attrs().Set(key, value);
  try {
    schema->NormalizeAttrs(*node);
    schema->CheckArity(*node);
    InferContext ctx(*node);
    schema->infer()(ctx);
    schema->CheckDtypes(*node);
  } catch (...) {
    g.RemoveNode(node);  // leave the graph as it was before the call
    throw;
  }
  return node->outputs();
}

Value* GraphBuilder::Single(const std::string& op_type, const std::vector<Value*>& inputs,
                            const std::map<std::string, AttrValue>& attrs, const std::string& name) {
  return Op(op_type, inputs, attrs, 1, name)[0];
}

Value* GraphBuilder::Conv2D(Value* x, Value* filter, Value* bias, const Conv2DOptions& options,
                            const std::string& name) {
  std::vector<Value*> inputs = {x, filter};
  if (bias != nullptr) inputs.push_back(bias);
  return Single("Conv2D", inputs,
                {{"strides", Nchw(options.strides)},
                 {"pads", Vector(options.pads)},
                 {"dilations", Nchw(options.dilations)},
                 {"groups", options.groups}},
                name);
}

Value* GraphBuilder::MatMul(Value* a, Value* b, Value* bias, bool transpose_a, bool transpose_b,
                            const std::string& name) {
  std::vector<Value*> inputs = {a, b};
  if (bias != nullptr) inputs.push_back(bias);
  return Single("MatMulV2", inputs, {{"transpose_x1", transpose_a}, {"transpose_x2", transpose_b}}, name);
}

Value* GraphBuilder::BatchMatMul(Value* a, Value* b, bool adjoint_a, bool adjoint_b, const std::string& name) {
  return Single("BatchMatMulV2", {a, b}, {{"adj_x1", adjoint_a}, {"adj_x2", adjoint_b}}, name);
}

Value* GraphBuilder::Add(Value* a, Value* b, const std::string& name) { return Single("Add", {a, b}, {}, name); }
Value* GraphBuilder::Sub(Value* a, Value* b, const std::string& name) { return Single("Sub", {a, b}, {}, name); }
Value* GraphBuilder::Mul(Value* a, Value* b, const std::string& name) { return Single("Mul", {a, b}, {}, name); }
Value* GraphBuilder::Div(Value* a, Value* b, const std::string& name) { return Single("Div", {a, b}, {}, name); }

Value* GraphBuilder::Relu(Value* x, const std::string& name) { return Single("Relu", {x}, {}, name); }
Value* GraphBuilder::Sigmoid(Value* x, const std::string& name) { return Single("Sigmoid", {x}, {}, name); }
Value* GraphBuilder::Tanh(Value* x, const std::string& name) { return Single("Tanh", {x}, {}, name); }
Value* GraphBuilder::Gelu(Value* x, const std::string& name) { return Single("Gelu", {x}, {}, name); }

Value* GraphBuilder::Softmax(Value* x, int64_t axis, const std::string& name) {
  return Single("SoftmaxV2", {x}, {{"axes", std::vector<int64_t>{axis}}}, name);
}

Value* GraphBuilder::LayerNorm(Value* x, Value* gamma, Value* beta, int64_t axis, float epsilon,
                               const std::string& name) {
  return Single("LayerNorm", {x, gamma, beta},
                {{"begin_norm_axis", axis}, {"begin_params_axis", axis}, {"epsilon", epsilon}}, name);
}

Value* GraphBuilder::MaxPool(Value* x, const Pool2DOptions& options, const std::string& name) {
  return Single("MaxPoolV3", {x},
                {{"ksize", Nchw(options.kernel)},
                 {"strides", Nchw(options.strides)},
                 {"pads", Vector(options.pads)},
                 {"ceil_mode", options.ceil_mode}},
                name);
}

Value* GraphBuilder::AvgPool(Value* x, const Pool2DOptions& options, bool exclusive, const std::string& name) {
  return Single("AvgPoolV2", {x},
                {{"ksize", Nchw(options.kernel)},
                 {"strides", Nchw(options.strides)},
                 {"pads", Vector(options.pads)},
                 {"ceil_mode", options.ceil_mode},
                 {"exclusive", exclusive}},
                name);
}

Value* GraphBuilder::Reshape(Value* x, const std::vector<int64_t>& shape, const std::string& name) {
  const std::string node_name = NodeName("Reshape", name);
  Value* target = Constant(node_name + "/shape",
                           Tensor::FromVector(DataType::kInt64, Shape({static_cast<int64_t>(shape.size())}), shape));
  try {
    return Single("Reshape", {x, target}, {}, node_name);
  } catch (...) {
    graph().RemoveNode(target->producer());
    throw;
  }
}

Value* GraphBuilder::Transpose(Value* x, const std::vector<int64_t>& perm, const std::string& name) {
  return Single("TransposeD", {x}, {{"perm", perm}}, name);
}

Value* GraphBuilder::Concat(const std::vector<Value*>& inputs, int64_t axis, const std::string& name) {
  return Single("ConcatD", inputs, {{"concat_dim", axis}, {"N", static_cast<int64_t>(inputs.size())}}, name);
}

Value* GraphBuilder::Flatten(Value* x, int64_t axis, const std::string& name) {
  return Single("Flatten", {x}, {{"axis", axis}}, name);
}

Value* GraphBuilder::Cast(Value* x, DataType dtype, const std::string& name) {
  return Single("Cast", {x}, {{"dst_type", static_cast<int64_t>(dtype)}}, name);
}

void GraphBuilder::Output(Value* value) { Outputs({value}); }

void GraphBuilder::Outputs(const std::vector<Value*>& values) {
  Graph& g = graph();
  std::vector<Value*> outputs = g.outputs();
  for (Value* value : values) {
    if (value == nullptr || value->producer()->graph() != &g) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("graph '{}': an output must be a value created by this builder", g.name()));
    }
    outputs.push_back(value);
  }
  g.SetOutputs(std::move(outputs));
}

std::unique_ptr<Graph> GraphBuilder::Build() {
  Graph& g = graph();
  if (g.outputs().empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("graph '{}' has no outputs; call GraphBuilder::Output() first", g.name()));
  }
  for (Node* node : g.nodes()) {
    if (const OpSchema* schema = OpRegistry::Global().Find(node->op_type())) schema->NormalizeAttrs(*node);
  }
  VerifyGraph(g, VerifyOptions{.allow_unknown_ops = false, .check_dtypes = true});
  return std::move(graph_);
}

}  // namespace ge

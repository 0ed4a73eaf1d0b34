// GraphBuilder: a small, typed way to build a ge::Graph in C++.
//
//   ge::GraphBuilder b("mlp");
//   ge::Value* x = b.Input("x", ge::DataType::kFloat, {1, 16});
//   ge::Value* w = b.Constant("w", weights);             // [16, 4]
//   b.Output(b.Softmax(b.Relu(b.MatMul(x, w))));
//   std::unique_ptr<ge::Graph> graph = b.Build();
//
// Every op is checked when it is added: its attributes are completed with the
// schema defaults and its output dtype and shape are inferred, so Value::shape()
// is known right away and a mistake throws ge::Error at the call that made it
// (the node is then not added). Node names are generated ("Conv2D_0",
// "Conv2D_1", ...) unless given; a given name must be unused. Op types and
// attributes are those of docs/op-set.md.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/attr.h"
#include "ge/export.h"
#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge {

// 2-D window parameters in (height, width) order; the builder expands them to
// the 4-element NCHW attributes of the op.
struct GE_API Conv2DOptions {
  std::array<int64_t, 2> strides = {1, 1};
  std::array<int64_t, 4> pads = {0, 0, 0, 0};  // top, bottom, left, right
  std::array<int64_t, 2> dilations = {1, 1};
  int64_t groups = 1;
};

struct GE_API Pool2DOptions {
  std::array<int64_t, 2> kernel = {2, 2};
  std::array<int64_t, 2> strides = {2, 2};
  std::array<int64_t, 4> pads = {0, 0, 0, 0};  // top, bottom, left, right
  bool ceil_mode = false;
};

class GE_API GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name = "graph");
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;

  // A graph input; inputs are numbered in the order they are added.
  Value* Input(const std::string& name, DataType dtype, Shape shape);
  Value* Constant(const std::string& name, Tensor value);

  // Any op of the registry. Returns its outputs; an empty name is generated.
  std::vector<Value*> Op(const std::string& op_type, const std::vector<Value*>& inputs,
                         const std::map<std::string, AttrValue>& attrs = {}, size_t num_outputs = 1,
                         const std::string& name = "");

  // x [N, C, H, W], filter [Cout, C/groups, kh, kw], optional bias [Cout].
  Value* Conv2D(Value* x, Value* filter, Value* bias = nullptr, const Conv2DOptions& options = {},
                const std::string& name = "");
  // 2-D matrix product (MatMulV2) with optional bias [N].
  Value* MatMul(Value* a, Value* b, Value* bias = nullptr, bool transpose_a = false, bool transpose_b = false,
                const std::string& name = "");
  // numpy matmul with batch broadcasting (BatchMatMulV2).
  Value* BatchMatMul(Value* a, Value* b, bool adjoint_a = false, bool adjoint_b = false, const std::string& name = "");

  Value* Add(Value* a, Value* b, const std::string& name = "");
  Value* Sub(Value* a, Value* b, const std::string& name = "");
  Value* Mul(Value* a, Value* b, const std::string& name = "");
  Value* Div(Value* a, Value* b, const std::string& name = "");

  Value* Relu(Value* x, const std::string& name = "");
  Value* Sigmoid(Value* x, const std::string& name = "");
  Value* Tanh(Value* x, const std::string& name = "");
  Value* Gelu(Value* x, const std::string& name = "");

  Value* Softmax(Value* x, int64_t axis = -1, const std::string& name = "");
  // Normalizes over axes [axis, rank); gamma and beta cover those axes.
  Value* LayerNorm(Value* x, Value* gamma, Value* beta, int64_t axis = -1, float epsilon = 1e-5f,
                   const std::string& name = "");
  Value* MaxPool(Value* x, const Pool2DOptions& options = {}, const std::string& name = "");
  // exclusive: padded positions are not counted in the average.
  Value* AvgPool(Value* x, const Pool2DOptions& options = {}, bool exclusive = true, const std::string& name = "");

  // ONNX Reshape semantics (0 copies a dim, one -1 is inferred); the shape becomes a Const.
  Value* Reshape(Value* x, const std::vector<int64_t>& shape, const std::string& name = "");
  Value* Transpose(Value* x, const std::vector<int64_t>& perm, const std::string& name = "");
  Value* Concat(const std::vector<Value*>& inputs, int64_t axis, const std::string& name = "");
  Value* Flatten(Value* x, int64_t axis = 1, const std::string& name = "");
  Value* Cast(Value* x, DataType dtype, const std::string& name = "");

  void Output(Value* value);
  void Outputs(const std::vector<Value*>& values);

  // Verifies the graph and hands it over; the builder is empty afterwards.
  // Throws ge::Error when the graph has no outputs or fails verification.
  std::unique_ptr<Graph> Build();

 private:
  Value* Single(const std::string& op_type, const std::vector<Value*>& inputs,
                const std::map<std::string, AttrValue>& attrs, const std::string& name);
  std::string NodeName(const std::string& op_type, const std::string& requested);
  Graph& graph();

  std::unique_ptr<Graph> graph_;
  std::map<std::string, int64_t> name_counters_;  // next generated suffix per op type
};

}  // namespace ge

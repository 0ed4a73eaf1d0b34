#include <fmt/format.h>

#include <cfloat>

#include "graph/onnx/onnx_scalar.h"
#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// A scalar Const of the dtype of input `like`, named "<node>/<suffix>".
Value* AddScalarLike(NodeTranslation& node, size_t like, const std::string& suffix, double value) {
  std::optional<Tensor> scalar = MakeScalar(node.InputDType(like), value);
  if (!scalar) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("cannot make the constant '{}' for input {} of dtype {}", suffix,
                                                   like, DataTypeName(node.InputDType(like))));
  }
  return node.AddHelperConstant(suffix, std::move(*scalar));
}

Value* AddLimitLike(NodeTranslation& node, size_t like, const std::string& suffix, bool largest) {
  std::optional<Tensor> scalar = MakeLimitScalar(node.InputDType(like), largest);
  if (!scalar) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("cannot make the bound '{}' for input {} of dtype {}", suffix,
                                                   like, DataTypeName(node.InputDType(like))));
  }
  return node.AddHelperConstant(suffix, std::move(*scalar));
}

// Gemm's C as MatMulV2's 1-D bias, when it is one: shape [N] or [1, N] with N
// the output's column count. [1, N] must be constant to be reshaped here.
Value* AsMatMulBias(NodeTranslation& node, bool trans_b) {
  Value* c = node.Input(2);
  const Shape b_shape = node.InputShape(1);
  const Shape c_shape = node.InputShape(2);
  if (!c || b_shape.unknown_rank() || b_shape.rank() != 2 || c_shape.unknown_rank()) return nullptr;
  const int64_t n = b_shape.dim(trans_b ? 0 : 1);
  if (n < 0) return nullptr;
  if (c_shape.rank() == 1 && c_shape.dim(0) == n) return c;
  const Tensor* constant = node.InputConstant(2);
  if (c_shape.rank() == 2 && c_shape.dim(0) == 1 && c_shape.dim(1) == n && constant) {
    return node.AddHelperConstant("bias", constant->Reshaped(Shape{n}));
  }
  return nullptr;
}

}  // namespace

// Y = alpha * op(A) * op(B) + beta * C -> MatMulV2 with the transposes. C is
// fused as MatMulV2's bias when alpha = beta = 1 and C is a row vector;
// otherwise Mul nodes scale by alpha and beta and an Add adds C.
void TranslateGemm(NodeTranslation& node) {
  const float alpha = node.attrs().Float("alpha", 1.0f);
  const float beta = node.attrs().Float("beta", 1.0f);
  const bool trans_a = node.attrs().Int("transA", 0) != 0;
  const bool trans_b = node.attrs().Int("transB", 0) != 0;
  Value* bias = alpha == 1.0f && beta == 1.0f ? AsMatMulBias(node, trans_b) : nullptr;
  Node* matmul = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), bias});
  matmul->attrs().Set("transpose_x1", trans_a);
  matmul->attrs().Set("transpose_x2", trans_b);
  Value* result = matmul->output(0);
  if (alpha != 1.0f) {
    result = node.AddHelperNode("Mul", "alpha_mul", {result, AddScalarLike(node, 0, "alpha", alpha)})->output(0);
  }
  if (Value* c = node.Input(2); c && !bias) {
    if (beta != 1.0f) c = node.AddHelperNode("Mul", "beta_mul", {c, AddScalarLike(node, 2, "beta", beta)})->output(0);
    result = node.AddHelperNode("Add", "bias_add", {result, c})->output(0);
  }
  node.BindOutput(0, result);
}

// Clip before opset 11: bounds in the attributes min/max (default -/+FLT_MAX).
void TranslateClipWithAttrs(NodeTranslation& node) {
  const float lo = node.attrs().Float("min", -FLT_MAX);
  const float hi = node.attrs().Float("max", FLT_MAX);
  Node* clip = node.AddMainNode(
      {node.RequiredInput(0), AddScalarLike(node, 0, "min", lo), AddScalarLike(node, 0, "max", hi)});
  node.BindOutputs(clip);
}

// Clip from opset 11: optional inputs min and max; a missing bound is the
// lowest/largest value of the input's dtype (+/-FLT_MAX for float32).
void TranslateClipWithInputs(NodeTranslation& node) {
  Value* lo = node.Input(1);
  Value* hi = node.Input(2);
  if (!lo) lo = AddLimitLike(node, 0, "min", /*largest=*/false);
  if (!hi) hi = AddLimitLike(node, 0, "max", /*largest=*/true);
  node.BindOutputs(node.AddMainNode({node.RequiredInput(0), lo, hi}));
}

}  // namespace ge::onnx_import

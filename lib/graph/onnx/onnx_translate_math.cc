#include <fmt/core.h>

#include <algorithm>
#include <cfloat>

#include "graph/onnx/onnx_scalar.h"
#include "graph/onnx/onnx_translators.h"
#include "graph/op_schema.h"

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

namespace ge::onnx_import {

// Max, Min, Sum (1..N inputs, numpy broadcasting) -> a chain of the binary
// op; Mean adds a Div by N. One input is the identity.
void TranslateVariadic(NodeTranslation& node) {
  const size_t n = node.num_inputs();
  if (n == 0) node.Fail(ErrorCode::kInvalidModel, "needs at least one input");
  Value* result = node.RequiredInput(0);
  if (n == 1) {
    node.BindOutputs(node.AddMainNodeAs("Identity", {result}));
    return;
  }
  Node* main = node.AddMainNode({result, node.RequiredInput(1)});
  result = main->output(0);
  for (size_t i = 2; i < n; ++i) {
    result = node.AddHelperNode(main->op_type(), fmt::format("acc{}", i), {result, node.RequiredInput(i)})->output(0);
  }
  if (node.proto().op_type() == "Mean") {
    Value* count = AddScalarLike(node, 0, "count", static_cast<double>(n));
    result = node.AddHelperNode("Div", "mean", {result, count})->output(0);
  }
  node.BindOutput(0, result);
}

// Pow from opset 12 lets the exponent's dtype differ from the base's; the
// result has the base's dtype. A float exponent of an integer base computes
// in the exponent's float type and truncates back (as numpy's reference
// does); otherwise the exponent converts to the base's dtype.
void TranslatePow(NodeTranslation& node) {
  Value* base = node.RequiredInput(0);
  Value* exponent = node.RequiredInput(1);
  const DataType base_type = node.InputDType(0);
  const DataType exp_type = node.InputDType(1);
  if (base_type == exp_type) {
    node.BindOutputs(node.AddMainNode({base, exponent}));
    return;
  }
  auto cast = [&](Value* v, DataType to, const std::string& suffix) {
    Node* c = node.AddHelperNode("Cast", suffix, {v});
    c->attrs().Set("dst_type", static_cast<int64_t>(to));
    return c->output(0);
  };
  const auto& floats = types::Float();
  const bool base_float = std::find(floats.begin(), floats.end(), base_type) != floats.end();
  const bool exp_float = std::find(floats.begin(), floats.end(), exp_type) != floats.end();
  if (!base_float && exp_float) {
    Node* pow = node.AddMainNode({cast(base, exp_type, "base_cast"), exponent});
    node.BindOutput(0, cast(pow->output(0), base_type, "result_cast"));
    return;
  }
  node.BindOutputs(node.AddMainNode({base, cast(exponent, base_type, "exponent_cast")}));
}

// fmod = 0: floored remainder (FloorMod, integers only in ONNX); fmod = 1:
// truncated remainder (Mod, C fmod).
void TranslateMod(NodeTranslation& node) {
  const int64_t fmod = node.attrs().Int("fmod", 0);
  if (fmod != 0 && fmod != 1) {
    node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute 'fmod' = {} is not valid (valid: 0, 1)", fmod));
  }
  std::vector<Value*> inputs = {node.RequiredInput(0), node.RequiredInput(1)};
  node.BindOutputs(fmod == 1 ? node.AddMainNodeAs("Mod", inputs) : node.AddMainNode(inputs));
}

// direction "LEFT" / "RIGHT" -> LeftShift / RightShift.
void TranslateBitShift(NodeTranslation& node) {
  const std::string direction = node.attrs().String("direction", "");
  std::vector<Value*> inputs = {node.RequiredInput(0), node.RequiredInput(1)};
  if (direction == "LEFT") {
    node.BindOutputs(node.AddMainNodeAs("LeftShift", inputs));
  } else if (direction == "RIGHT") {
    node.BindOutputs(node.AddMainNodeAs("RightShift", inputs));
  } else {
    node.Fail(ErrorCode::kInvalidModel,
              fmt::format("attribute 'direction' = '{}' is not valid (valid: LEFT, RIGHT)", direction));
  }
}

// CastLike: Cast to the dtype of input 1.
void TranslateCastLike(NodeTranslation& node) {
  const DataType target = node.InputDType(1);
  if (target == DataType::kUndefined) node.Fail(ErrorCode::kUnsupported, "the dtype of input target_type is unknown");
  Node* cast = node.AddMainNode({node.RequiredInput(0)});
  cast->attrs().Set("dst_type", static_cast<int64_t>(target));
  node.BindOutputs(cast);
}

void TranslateIsInf(NodeTranslation& node) {
  Node* isinf = node.AddMainNode({node.RequiredInput(0)});
  isinf->attrs().Set("detect_negative", node.attrs().Int("detect_negative", 1));
  isinf->attrs().Set("detect_positive", node.attrs().Int("detect_positive", 1));
  node.BindOutputs(isinf);
}

}  // namespace ge::onnx_import

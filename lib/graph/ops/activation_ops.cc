// Activations with attributes, PRelu, and the axis normalizations
// LogSoftmaxV2 and Hardmax (SoftmaxV2 is in norm_ops.cc).
#include <fmt/core.h>


#include "graph/ops/elementwise_infer.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {
namespace {

struct FloatAttrSpec {
  const char* name;
  float default_value;
};

void RegisterActivation(OpRegistry& registry, const char* op_type, std::initializer_list<FloatAttrSpec> attrs,
                        const char* doc) {
  OpSchema schema(op_type);
  schema.Input("x").Output("y").TypeConstraint("T", types::Float()).Infer(InferSameAsInput).InferSymbolic(symbolic::SameAsInput).Doc(doc);
  for (const FloatAttrSpec& attr : attrs) schema.Attr(attr.name, attr.default_value);
  registry.Register(std::move(schema));
}

// PRelu's slope broadcasts to x (ONNX's unidirectional broadcasting).
void InferPRelu(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const Shape y = infer::Broadcast(ctx, x, ctx.input_shape(1));
  bool grows_x = !x.unknown_rank() && !y.unknown_rank() && y.rank() != x.rank();
  for (size_t d = 0; !grows_x && !x.unknown_rank() && !y.unknown_rank() && d < x.rank(); ++d) {
    grows_x = x.dim(d) != Shape::kUnknownDim && y.dim(d) != Shape::kUnknownDim && x.dim(d) != y.dim(d);
  }
  if (grows_x) {
    ctx.Fail(fmt::format("slope {} does not broadcast to x {}", ctx.input_shape(1).ToString(), x.ToString()));
  }
  ctx.set_output(0, ctx.input_dtype(0), x.unknown_rank() ? y : x);
}

}  // namespace

void RegisterActivationOps(OpRegistry& registry) {
  RegisterActivation(registry, "LeakyRelu", {{"negative_slope", 0.0f}}, "x < 0 ? negative_slope * x : x");
  RegisterActivation(registry, "Elu", {{"alpha", 1.0f}}, "x < 0 ? alpha * (exp(x) - 1) : x");
  RegisterActivation(registry, "Selu", {{"alpha", 1.67326319217681884765625f}, {"gamma", 1.05070102214813232421875f}},
                     "gamma * (x > 0 ? x : alpha * (exp(x) - 1))");
  RegisterActivation(registry, "Celu", {{"alpha", 1.0f}}, "x > 0 ? x : alpha * (exp(x / alpha) - 1)");
  RegisterActivation(registry, "ThresholdedRelu", {{"alpha", 1.0f}}, "x > alpha ? x : 0");
  RegisterActivation(registry, "HardSigmoid", {{"alpha", 0.2f}, {"beta", 0.5f}}, "max(0, min(1, alpha * x + beta))");
  RegisterActivation(registry, "HardSwish", {}, "x * max(0, min(1, x / 6 + 1/2))");
  RegisterActivation(registry, "Mish", {}, "x * tanh(softplus(x))");
  RegisterActivation(registry, "Softplus", {}, "log(1 + exp(x))");
  RegisterActivation(registry, "Softsign", {}, "x / (1 + |x|)");
  RegisterActivation(registry, "Shrink", {{"lambd", 0.5f}, {"bias", 0.0f}},
                     "x < -lambd ? x + bias : x > lambd ? x - bias : 0");
  registry.Register(OpSchema("PRelu")
                        .Input("x")
                        .Input("weight")
                        .Output("y")
                        .TypeConstraint("T", types::Numeric())
                        .Infer(InferPRelu)
                        .Doc("x < 0 ? weight * x : x; weight broadcasts to x"));
  for (const char* op_type : {"LogSoftmaxV2", "Hardmax"}) {
    registry.Register(OpSchema(op_type)
                          .Input("x")
                          .Output("y")
                          .Attr("axes", std::vector<int64_t>{-1})
                          .TypeConstraint("T", types::Float())
                          .Infer(infer::InferAxesNormalization)
                          .InferSymbolic(symbolic::SameAsInput)
                          .Doc(std::string(op_type) == "Hardmax"
                                   ? "1 at the first maximum along the listed (adjacent) axes, 0 elsewhere"
                                   : "log(softmax(x)) over the listed (adjacent) axes"));
  }
}

}  // namespace ge

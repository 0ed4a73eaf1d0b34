// Graph inputs and constants: their output value is described by the node itself.
#include <fmt/core.h>

#include "graph/dim_names.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

// A Data node's value carries the dtype and shape the caller declared; there
// is nothing to derive, only the index to validate.
void InferData(InferContext& ctx) {
  const int64_t index = infer::Attr<int64_t>(ctx, "index");
  if (index < 0) ctx.Fail(fmt::format("attribute 'index' must be >= 0, got {}", index));
}

void InferConst(InferContext& ctx) {
  const Tensor& value = infer::Attr<Tensor>(ctx, "value");
  if (value.empty()) ctx.Fail("attribute 'value' holds no tensor");
  ctx.set_output(0, value.dtype(), value.shape());
}

}  // namespace

void RegisterIoOps(OpRegistry& registry) {
  registry.Register(OpSchema("Data")
                        .Output("y")
                        .RequiredAttr("index", AttrType::kInt)
                        .Attr(kDimNamesAttr, std::vector<std::string>{})
                        .TypeConstraint("T", types::AnyValue())
                        .Infer(InferData)
                        .Doc("Graph input number `index`; dtype and shape are those of its value. dim_names: the "
                             "names of its dims (ONNX dim_param), empty for unnamed ones (graph/dim_names.h)."));
  registry.Register(OpSchema("Const")
                        .Output("y")
                        .RequiredAttr("value", AttrType::kTensor)
                        .TypeConstraint("T", types::All())
                        .Infer(InferConst)
                        .Doc("A constant tensor."));
}

}  // namespace ge

#include "graph/ops/op_families.h"

namespace ge {

void RegisterBuiltinOps(OpRegistry& registry) {
  RegisterIoOps(registry);
  RegisterElementwiseOps(registry);
  RegisterConvOps(registry);
  RegisterPoolOps(registry);
  RegisterNormOps(registry);
  RegisterMatMulOps(registry);
  RegisterReduceOps(registry);
  RegisterShapeOps(registry);
  RegisterSliceOps(registry);
}

}  // namespace ge

#include "graph/ops/op_families.h"

namespace ge {

void RegisterBuiltinOps(OpRegistry& registry) {
  RegisterIoOps(registry);
  RegisterElementwiseOps(registry);
  RegisterLogicOps(registry);
  RegisterActivationOps(registry);
  RegisterConvOps(registry);
  RegisterPoolOps(registry);
  RegisterNormOps(registry);
  RegisterMatMulOps(registry);
  RegisterReduceOps(registry);
  RegisterResizeOps(registry);
  RegisterShapeOps(registry);
  RegisterSliceOps(registry);
  RegisterLayoutOps(registry);
  RegisterGeneratorOps(registry);
  RegisterIndexOps(registry);
  RegisterQuantOps(registry);
  RegisterAscendQuantOps(registry);
  RegisterFfnOps(registry);
  RegisterRecurrentOps(registry);
  RegisterLossOps(registry);
  RegisterDetectionOps(registry);
  RegisterSignalOps(registry);
  RegisterControlFlowOps(registry);
  RegisterSequenceOps(registry);
}

}  // namespace ge

// A dynamic model compiled with ge.exec.releasePackedConstants keeps the
// weights its products read only packed: each is packed once, when the model
// is compiled, into the layout oneDNN's products want at every row count
// (Device::PackForEveryShape), its Const node then holds the packed bytes
// under its dtype and shape, and the plain bytes are freed. Every kernel the
// model builds later (node by node, or for the plan of an input shape) is
// offered those bytes as that layout (PrepackedWeights::OfferStored), so the
// model holds one copy of its weights and multiplies them packed at every
// shape. Such a model cannot be saved (its constants are not their values).
#pragma once

#include "runtime/execution_plan.h"

namespace ge::runtime {

// Packs what the device can among impl.graph's constants; sets
// impl.kept_packed (null when none) and counts them in released_constants.
// Inside the build of another model's kernels nothing is packed: the model
// keeps what that build offers shared (another model's kept weights), if any.
void KeepWeightsOnlyPacked(CompiledModel::Impl& impl, const device::Device& device);

}  // namespace ge::runtime

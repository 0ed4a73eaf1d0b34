// DepthToSpace and SpaceToDepth (NCHW): each is a transpose of a 6-D view of
// x, so they reuse the transpose kernel.
#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/transpose.h"

namespace ge::device::cpu {

namespace {

int64_t BlockSizeOf(const Node& node) {
  RequireNchw(node);
  const int64_t block = node.attrs().GetInt("block_size");
  const Shape& x = InputShape(node, 0);
  if (block < 1 || x.rank() != 4) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("needs a 4-D x and a positive block_size, got x {} and block_size {}", x.ToString(), block));
  }
  return block;
}

// DCR: x viewed as [N, b, b, C', H, W] -> [N, C', H, b, W, b];
// CRD: x viewed as [N, C', b, b, H, W] -> [N, C', H, b, W, b].
std::unique_ptr<Kernel> MakeDepthToSpace(const Node& node) {
  const int64_t b = BlockSizeOf(node);
  const auto& d = InputShape(node, 0).dims();
  const std::string& mode = node.attrs().GetString("mode");
  const int64_t channels = d[1] / (b * b);
  if (d[1] % (b * b) != 0) Fail(node, ErrorCode::kInvalidArgument, "channels are not a multiple of block_size^2");
  if (mode == "DCR") return MakeTransposeKernel(node, {d[0], b, b, channels, d[2], d[3]}, {0, 3, 4, 1, 5, 2});
  if (mode == "CRD") return MakeTransposeKernel(node, {d[0], channels, b, b, d[2], d[3]}, {0, 1, 4, 2, 5, 3});
  Fail(node, ErrorCode::kUnsupported, fmt::format("attribute 'mode' = '{}'; supported: DCR, CRD", mode));
}

// x viewed as [N, C, H/b, b, W/b, b] -> [N, b, b, C, H/b, W/b].
std::unique_ptr<Kernel> MakeSpaceToDepth(const Node& node) {
  const int64_t b = BlockSizeOf(node);
  const auto& d = InputShape(node, 0).dims();
  if (d[2] % b != 0 || d[3] % b != 0) {
    Fail(node, ErrorCode::kInvalidArgument, "height and width must be multiples of block_size");
  }
  return MakeTransposeKernel(node, {d[0], d[1], d[2] / b, b, d[3] / b, b}, {0, 3, 5, 1, 2, 4});
}

}  // namespace

void RegisterSpaceDepthKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "DepthToSpace", DataTypesOf(AllTypes{}), MakeDepthToSpace);
  RegisterKernel(registry, "SpaceToDepth", DataTypesOf(AllTypes{}), MakeSpaceToDepth);
}

}  // namespace ge::device::cpu

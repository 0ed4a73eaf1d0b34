// GatherV2D (ONNX Gather, with TensorFlow's batch_dims): picks slices of x
// along `axis` by index; negative indices count from the end.
#include <cstring>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// x is viewed as [batch, outer, axis_dim, inner] and indices as [batch, count]:
// y[b, o, i, :] = x[b, o, indices[b, i], :].
struct GatherLayout {
  int64_t batch = 1;
  int64_t outer = 1;
  int64_t axis_dim = 1;
  int64_t inner = 1;
  int64_t count = 1;
  size_t element_bytes = 0;
};

class GatherKernel final : public Kernel {
 public:
  GatherKernel(const Node& node, GatherLayout layout) : label_(node.Describe()), layout_(layout) {}

  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t> indices = ReadIndexTensor(label_, ctx.inputs[1], "indices");
    // Validated up front: a bad index must fail cleanly, not inside the
    // parallel copy loop.
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < -layout_.axis_dim || indices[i] >= layout_.axis_dim) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: index {} at position {} is out of range [{}, {})", label_, indices[i], i,
                                -layout_.axis_dim, layout_.axis_dim));
      }
    }
    const auto* x = static_cast<const char*>(ctx.inputs[0].data);
    auto* y = static_cast<char*>(ctx.outputs[0].data);
    const size_t slice_bytes = static_cast<size_t>(layout_.inner) * layout_.element_bytes;
    const int64_t rows = layout_.batch * layout_.outer * layout_.count;
#pragma omp parallel for if (rows * layout_.inner > kParallelGrain)
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t i = row % layout_.count;
      const int64_t bo = row / layout_.count;  // batch * outer + outer index
      const int64_t b = bo / layout_.outer;
      int64_t index = indices[b * layout_.count + i];
      if (index < 0) index += layout_.axis_dim;
      std::memcpy(y + row * slice_bytes, x + (bo * layout_.axis_dim + index) * slice_bytes, slice_bytes);
    }
  }

 private:
  std::string label_;
  GatherLayout layout_;
};

std::unique_ptr<Kernel> MakeGather(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& indices = InputShape(node, 1);
  const int64_t rank = static_cast<int64_t>(x.rank());
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt("axis"), x.rank(), "axis");
  int64_t batch_dims = node.attrs().GetInt("batch_dims");
  if (batch_dims < 0) batch_dims += static_cast<int64_t>(indices.rank());
  if (batch_dims < 0 || batch_dims > axis || batch_dims > static_cast<int64_t>(indices.rank())) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'batch_dims' = {} must lie in [0, min(axis = {}, indices rank = {})]",
                     node.attrs().GetInt("batch_dims"), axis, indices.rank()));
  }
  for (int64_t d = 0; d < batch_dims; ++d) {
    if (x.dim(d) != indices.dim(d)) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("batch dim {} differs between x {} and indices {}", d, x.ToString(), indices.ToString()));
    }
  }
  GatherLayout layout;
  const auto& dims = x.dims();
  layout.batch = Product(std::span(dims).first(batch_dims));
  layout.outer = Product(std::span(dims).subspan(batch_dims, axis - batch_dims));
  layout.axis_dim = x.dim(axis);
  layout.inner = Product(std::span(dims).subspan(axis + 1, rank - axis - 1));
  layout.count = Product(std::span(indices.dims()).subspan(batch_dims));
  layout.element_bytes = DataTypeSize(InputDtype(node, 0));
  if (layout.batch * layout.outer * layout.count * layout.inner != OutputShape(node, 0).NumElements()) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("output shape {} does not match gathering {} by indices {}", OutputShape(node, 0).ToString(),
                     x.ToString(), indices.ToString()));
  }
  const DataType index_dtype = InputDtype(node, 1);
  if (index_dtype != DataType::kInt32 && index_dtype != DataType::kInt64) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("indices dtype {} is not supported; supported: int32, int64", DataTypeName(index_dtype)));
  }
  return std::make_unique<GatherKernel>(node, layout);
}

}  // namespace

void RegisterGatherKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "GatherV2D", DataTypesOf(AllTypes{}), MakeGather);
}

}  // namespace ge::device::cpu

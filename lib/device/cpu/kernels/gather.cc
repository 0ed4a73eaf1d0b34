// The gather kernels: GatherV2D (ONNX Gather, with TensorFlow's batch_dims)
// picks slices of x along `axis` by index; GatherElements picks single
// elements along an axis; GatherNd picks slices by index tuples. Negative
// indices count from the end.
#include <cstring>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/index_utils.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/axis_view.h"

namespace ge::device::cpu {

namespace {

// x is viewed as [batch, x_view] (x_view around the axis, batch dims apart)
// and indices as [batch, count]: y[b, o, i, :] = x[b, o, indices[b, i], :].
struct GatherLayout {
  int64_t batch = 1;
  AxisView x_view;
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
      if (indices[i] < -layout_.x_view.length || indices[i] >= layout_.x_view.length) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: index {} at position {} is out of range [{}, {})", label_, indices[i], i,
                                -layout_.x_view.length, layout_.x_view.length));
      }
    }
    const auto* x = static_cast<const char*>(ctx.inputs[0].data);
    auto* y = static_cast<char*>(ctx.outputs[0].data);
    const size_t slice_bytes = static_cast<size_t>(layout_.x_view.inner) * layout_.element_bytes;
    const int64_t rows = layout_.batch * layout_.x_view.outer * layout_.count;
    ParallelFor(rows, rows * layout_.x_view.inner > kParallelGrain, [&](int64_t row) {
      const int64_t i = row % layout_.count;
      const int64_t bo = row / layout_.count;  // batch * outer + outer index
      const int64_t b = bo / layout_.x_view.outer;
      int64_t index = indices[b * layout_.count + i];
      if (index < 0) index += layout_.x_view.length;
      std::memcpy(y + row * slice_bytes, x + (bo * layout_.x_view.length + index) * slice_bytes, slice_bytes);
    });
  }

 private:
  std::string label_;
  GatherLayout layout_;
};

std::unique_ptr<Kernel> MakeGather(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& indices = InputShape(node, 1);
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
  layout.x_view = ViewAround(dims, static_cast<size_t>(axis), static_cast<size_t>(batch_dims));
  layout.count = Product(std::span(indices.dims()).subspan(batch_dims));
  layout.element_bytes = DataTypeSize(InputDtype(node, 0));
  if (layout.batch * layout.x_view.outer * layout.count * layout.x_view.inner != OutputShape(node, 0).NumElements()) {
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

// y[i] = x[i with i[axis] replaced by indices[i]]; indices may be smaller
// than x in every dim.
template <typename Element>
class GatherElementsKernel final : public Kernel {
 public:
  GatherElementsKernel(const Node& node, int64_t axis)
      : label_(node.Describe()),
        axis_(axis),
        x_dims_(InputShape(node, 0).dims()),
        index_dims_(InputShape(node, 1).dims()) {}

  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t> indices = WrappedIndices(label_, ctx.inputs[1], x_dims_[axis_], "index");
    const std::vector<int64_t> x_strides = RowMajorStrides(x_dims_);
    const auto* x = ctx.inputs[0].as<const Element>();
    auto* y = ctx.outputs[0].as<Element>();
    const auto n = static_cast<int64_t>(indices.size());
    const size_t rank = index_dims_.size();
    ParallelFor(n, n > kParallelGrain, [&](int64_t i) {
      int64_t offset = 0;
      int64_t rest = i;
      for (size_t d = rank; d-- > 0;) {
        const int64_t position = static_cast<int64_t>(d) == axis_ ? indices[i] : rest % index_dims_[d];
        offset += position * x_strides[d];
        rest /= index_dims_[d];
      }
      y[i] = x[offset];
    });
  }

 private:
  std::string label_;
  int64_t axis_;
  std::vector<int64_t> x_dims_;
  std::vector<int64_t> index_dims_;
};

std::unique_ptr<Kernel> MakeGatherElements(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& indices = InputShape(node, 1);
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt("dim"), x.rank(), "dim");
  for (size_t d = 0; d < x.rank() && indices.rank() == x.rank(); ++d) {
    if (static_cast<int64_t>(d) != axis && indices.dim(d) > x.dim(d)) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("indices {} exceed x {} along dim {}", indices.ToString(), x.ToString(), d));
    }
  }
  if (indices.rank() != x.rank()) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("indices {} and x {} must have the same rank", indices.ToString(), x.ToString()));
  }
  return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<GatherElementsKernel<typename decltype(tag)::type>>(node, axis);
  });
}

// x viewed as [batch, addressed..., slice] and indices as [batch, count, k]:
// y[b, c, :] = x[b, indices[b, c, 0..k), :].
struct GatherNdLayout {
  int64_t batch = 1;
  int64_t count = 1;
  int64_t k = 0;
  std::vector<int64_t> addressed;  // the k dims of x the tuples index
  int64_t slice = 1;
  size_t element_bytes = 0;
};

class GatherNdKernel final : public Kernel {
 public:
  GatherNdKernel(const Node& node, GatherNdLayout layout) : label_(node.Describe()), layout_(std::move(layout)) {}

  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t> indices = ReadIndexTensor(label_, ctx.inputs[1], "indices");
    const int64_t tuples = layout_.batch * layout_.count;
    // Offsets in slices, from the tuples; validated before the copy.
    std::vector<int64_t> offsets(static_cast<size_t>(tuples));
    int64_t addressed_total = 1;
    for (int64_t d : layout_.addressed) addressed_total *= d;
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = 0;
      for (int64_t j = 0; j < layout_.k; ++j) {
        offset = offset * layout_.addressed[j] +
                 WrapIndex(label_, indices[t * layout_.k + j], layout_.addressed[j], "index");
      }
      offsets[t] = (t / layout_.count) * addressed_total + offset;
    }
    const auto* x = static_cast<const char*>(ctx.inputs[0].data);
    auto* y = static_cast<char*>(ctx.outputs[0].data);
    const size_t slice_bytes = static_cast<size_t>(layout_.slice) * layout_.element_bytes;
    ParallelFor(tuples, tuples * layout_.slice > kParallelGrain, [&](int64_t t) {
      std::memcpy(y + t * slice_bytes, x + offsets[t] * slice_bytes, slice_bytes);
    });
  }

 private:
  std::string label_;
  GatherNdLayout layout_;
};

std::unique_ptr<Kernel> MakeGatherNd(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& indices = InputShape(node, 1);
  const int64_t batch_dims = node.attrs().GetInt("batch_dims");
  const auto q = static_cast<int64_t>(indices.rank());
  const auto r = static_cast<int64_t>(x.rank());
  if (q < 1 || batch_dims < 0 || batch_dims >= q || indices.dims().back() + batch_dims > r) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("indices {} with batch_dims {} do not fit x {}", indices.ToString(), batch_dims, x.ToString()));
  }
  GatherNdLayout layout;
  layout.k = indices.dims().back();
  for (int64_t d = 0; d < batch_dims; ++d) {
    if (x.dim(d) != indices.dim(d)) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("batch dim {} differs between x {} and indices {}", d, x.ToString(), indices.ToString()));
    }
    layout.batch *= x.dim(d);
  }
  layout.count = Product(std::span(indices.dims()).subspan(batch_dims, q - 1 - batch_dims));
  layout.addressed.assign(x.dims().begin() + batch_dims, x.dims().begin() + batch_dims + layout.k);
  layout.slice = Product(std::span(x.dims()).subspan(batch_dims + layout.k));
  layout.element_bytes = DataTypeSize(InputDtype(node, 0));
  if (layout.batch * layout.count * layout.slice != OutputShape(node, 0).NumElements()) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("output shape {} does not match gathering {} by indices {}", OutputShape(node, 0).ToString(),
                     x.ToString(), indices.ToString()));
  }
  return std::make_unique<GatherNdKernel>(node, std::move(layout));
}

}  // namespace

void RegisterGatherKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "GatherV2D", DataTypesOf(AllTypes{}), MakeGather);
  RegisterKernel(registry, "GatherElements", DataTypesOf(AllTypes{}), MakeGatherElements);
  RegisterKernel(registry, "GatherNd", DataTypesOf(AllTypes{}), MakeGatherNd);
}

}  // namespace ge::device::cpu

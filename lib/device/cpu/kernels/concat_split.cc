// ConcatD and SplitVD: both move contiguous blocks between one whole tensor
// and its pieces along an axis, so they share the block layout.
#include <cstring>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/axis_view.h"

namespace ge::device::cpu {

namespace {

// Seen from the axis, the whole tensor is `outer` rows; row o of piece i is
// piece_bytes[i] bytes at byte offset piece_offsets[i] of the whole's row o.
struct AxisPieces {
  int64_t outer = 1;
  size_t whole_row_bytes = 0;
  std::vector<size_t> piece_bytes;
  std::vector<size_t> piece_offsets;
};

// `pieces` are the shapes of the parts; `whole` the shape of the joined tensor.
// Throws ge::Error (kInvalidModel) prefixed with `label` when the pieces do not make up the whole.
AxisPieces PlanPieces(const std::string& label, const Shape& whole, const std::vector<const Shape*>& pieces,
                      int64_t axis, DataType dtype) {
  AxisPieces plan;
  const AxisView view = ViewAround(whole.dims(), static_cast<size_t>(axis));
  plan.outer = view.outer;
  const int64_t inner = view.inner;
  const size_t element = DataTypeSize(dtype);
  int64_t axis_total = 0;
  for (const Shape* piece : pieces) {
    bool matches = piece->rank() == whole.rank();
    for (size_t d = 0; matches && d < whole.rank(); ++d) {
      matches = static_cast<int64_t>(d) == axis || piece->dim(d) == whole.dim(d);
    }
    if (!matches) {
      throw Error(ErrorCode::kInvalidModel, fmt::format("{}: shape {} does not fit {} along axis {}", label,
                                                        piece->ToString(), whole.ToString(), axis));
    }
    plan.piece_offsets.push_back(static_cast<size_t>(axis_total * inner) * element);
    plan.piece_bytes.push_back(static_cast<size_t>(piece->dim(axis) * inner) * element);
    axis_total += piece->dim(axis);
  }
  if (axis_total != whole.dim(axis)) {
    throw Error(ErrorCode::kInvalidModel, fmt::format("{}: the pieces add up to {} along axis {}, the whole has {}",
                                                      label, axis_total, axis, whole.dim(axis)));
  }
  plan.whole_row_bytes = static_cast<size_t>(whole.dim(axis) * inner) * element;
  return plan;
}

// Concat reads its pieces' lengths along the axis at run time, so one
// kernel serves a KV cache that grows by a row per token.
class ConcatKernel final : public Kernel {
 public:
  ConcatKernel(const Node& node, int64_t axis, DataType dtype) : label_(node.Describe()), axis_(axis), dtype_(dtype) {}

  bool TakesShapesAtRun() const override { return true; }

  void Run(const KernelContext& ctx) const override {
    std::vector<const Shape*> pieces;
    pieces.reserve(ctx.inputs.size());
    for (const TensorView& input : ctx.inputs) pieces.push_back(input.shape);
    const AxisPieces plan = PlanPieces(label_, *ctx.outputs[0].shape, pieces, axis_, dtype_);
    auto* y = static_cast<char*>(ctx.outputs[0].data);
    const int64_t count = static_cast<int64_t>(plan.piece_bytes.size());
    const int64_t total_bytes = plan.outer * static_cast<int64_t>(plan.whole_row_bytes);
    ParallelFor(plan.outer * count, total_bytes > 4 * kParallelGrain, [&](int64_t task) {
      const int64_t o = task / count, i = task % count;
      const size_t bytes = plan.piece_bytes[i];
      std::memcpy(y + o * plan.whole_row_bytes + plan.piece_offsets[i],
                  static_cast<const char*>(ctx.inputs[i].data) + o * bytes, bytes);
    });
  }

 private:
  std::string label_;
  int64_t axis_;
  DataType dtype_;
};

class SplitKernel final : public Kernel {
 public:
  explicit SplitKernel(AxisPieces plan) : plan_(std::move(plan)) {}
  void Run(const KernelContext& ctx) const override {
    const auto* x = static_cast<const char*>(ctx.inputs[0].data);
    const int64_t pieces = static_cast<int64_t>(plan_.piece_bytes.size());
    const int64_t total_bytes = plan_.outer * static_cast<int64_t>(plan_.whole_row_bytes);
    ParallelFor(plan_.outer * pieces, total_bytes > 4 * kParallelGrain, [&](int64_t task) {
      const int64_t o = task / pieces, i = task % pieces;
      const size_t bytes = plan_.piece_bytes[i];
      std::memcpy(static_cast<char*>(ctx.outputs[i].data) + o * bytes,
                  x + o * plan_.whole_row_bytes + plan_.piece_offsets[i], bytes);
    });
  }

 private:
  AxisPieces plan_;
};

std::unique_ptr<Kernel> MakeConcat(const Node& node) {
  const Shape& out = OutputShape(node, 0);
  const int64_t n = node.attrs().GetInt("N");
  if (n != static_cast<int64_t>(node.num_inputs()) || n < 1) {
    Fail(node, ErrorCode::kInvalidModel, fmt::format("attribute 'N' is {} but the node has {} inputs", n,
                                                     node.num_inputs()));
  }
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt("concat_dim"), out.rank(), "concat_dim");
  std::vector<const Shape*> pieces;
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    if (InputDtype(node, i) != InputDtype(node, 0)) {
      Fail(node, ErrorCode::kInvalidModel, fmt::format("input {} has dtype {}, input 0 has {}", i,
                                                       DataTypeName(InputDtype(node, i)),
                                                       DataTypeName(InputDtype(node, 0))));
    }
    pieces.push_back(&InputShape(node, i));
  }
  PlanPieces(node.Describe(), out, pieces, axis, InputDtype(node, 0));  // the shapes it is built for must fit
  return std::make_unique<ConcatKernel>(node, axis, InputDtype(node, 0));
}

std::unique_ptr<Kernel> MakeSplit(const Node& node) {
  const Shape& in = InputShape(node, 0);
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt("split_dim"), in.rank(), "split_dim");
  const int64_t num_split = node.attrs().GetInt("num_split");
  if (num_split != static_cast<int64_t>(node.num_outputs())) {
    Fail(node, ErrorCode::kInvalidModel, fmt::format("attribute 'num_split' is {} but the node has {} outputs",
                                                     num_split, node.num_outputs()));
  }
  // The output shapes carry the resolved size_splits (a -1 entry already
  // replaced by the remainder during shape inference).
  std::vector<const Shape*> pieces;
  for (size_t i = 0; i < node.num_outputs(); ++i) pieces.push_back(&OutputShape(node, i));
  return std::make_unique<SplitKernel>(PlanPieces(node.Describe(), in, pieces, axis, InputDtype(node, 0)));
}

}  // namespace

void RegisterConcatSplitKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "ConcatD", DataTypesOf(AllTypes{}), MakeConcat);
  RegisterKernel(registry, "SplitVD", DataTypesOf(AllTypes{}), MakeSplit);
}

}  // namespace ge::device::cpu

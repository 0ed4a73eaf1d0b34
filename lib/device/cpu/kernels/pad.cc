// PadV3: pads (or, with negative paddings, crops) every dim. Each output
// index along a dim maps to an input index, or to "padding" in constant mode;
// the maps are built once per kernel from the constant-at-compile-time shapes
// and the paddings read at run time.
#include <cstring>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

enum class PadMode { kConstant, kReflect, kEdge };

constexpr int64_t kPadding = -1;  // map entry of an output index that lies in constant padding

// Input index read for output index `o` of a dim of length `dim` padded by `begin` in front.
int64_t SourceIndex(int64_t o, int64_t begin, int64_t dim, PadMode mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < dim) return i;
  switch (mode) {
    case PadMode::kConstant: return kPadding;
    case PadMode::kEdge: return i < 0 ? 0 : dim - 1;
    case PadMode::kReflect:
      if (dim == 1) return 0;
      // Reflection about the first and last elements repeats with period 2 * (dim - 1).
      i = i % (2 * (dim - 1));
      if (i < 0) i += 2 * (dim - 1);
      return i < dim ? i : 2 * (dim - 1) - i;
  }
  return kPadding;
}

template <typename Element>
class PadKernel final : public Kernel {
 public:
  PadKernel(const Node& node, PadMode mode)
      : label_(node.Describe()),
        mode_(mode),
        contiguous_(node.attrs().GetBool("paddings_contiguous")),
        in_dims_(InputShape(node, 0).dims()),
        out_dims_(OutputShape(node, 0).dims()) {}

  void Run(const KernelContext& ctx) const override {
    const size_t rank = in_dims_.size();
    const std::vector<int64_t> paddings = ReadIndexTensor(label_, ctx.inputs[1], "paddings");
    if (paddings.size() != 2 * rank) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: paddings has {} entries, expected {}", label_, paddings.size(), 2 * rank));
    }
    std::vector<std::vector<int64_t>> maps(rank);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t begin = paddings[contiguous_ ? 2 * d : d];
      const int64_t end = paddings[contiguous_ ? 2 * d + 1 : rank + d];
      if (in_dims_[d] + begin + end != out_dims_[d]) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: paddings [{}] do not give the output shape [{}]", label_,
                                fmt::join(paddings, ","), fmt::join(out_dims_, ",")));
      }
      if (in_dims_[d] == 0 && out_dims_[d] > 0 && mode_ != PadMode::kConstant) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: cannot pad the empty dim {} in edge or reflect mode", label_, d));
      }
      for (int64_t o = 0; o < out_dims_[d]; ++o) maps[d].push_back(SourceIndex(o, begin, in_dims_[d], mode_));
    }
    Element fill{};
    if (ctx.inputs.size() > 2 && ctx.inputs[2].data != nullptr && ctx.inputs[2].num_elements() > 0) {
      std::memcpy(&fill, ctx.inputs[2].data, sizeof(Element));
    }
    const auto* x = ctx.inputs[0].as<const Element>();
    auto* y = ctx.outputs[0].as<Element>();
    const int64_t total = Product(out_dims_);
    if (total == 0) return;
    if (rank == 0) {
      *y = *x;
      return;
    }
    const std::vector<int64_t> in_strides = RowMajorStrides(in_dims_);
    const int64_t inner = out_dims_.back();
    const std::vector<int64_t>& inner_map = maps.back();
    const int64_t rows = total / inner;
    ParallelFor(rows, total > kParallelGrain, [&](int64_t row) {
      Element* out = y + row * inner;
      int64_t offset = 0;
      int64_t rest = row;
      bool padding = false;
      for (size_t d = rank - 1; d-- > 0;) {
        const int64_t source = maps[d][rest % out_dims_[d]];
        rest /= out_dims_[d];
        padding = padding || source == kPadding;
        offset += source * in_strides[d];
      }
      for (int64_t j = 0; j < inner; ++j) {
        out[j] = padding || inner_map[j] == kPadding ? fill : x[offset + inner_map[j]];
      }
    });
  }

 private:
  std::string label_;
  PadMode mode_;
  bool contiguous_;
  std::vector<int64_t> in_dims_;
  std::vector<int64_t> out_dims_;
};

std::unique_ptr<Kernel> MakePad(const Node& node) {
  const std::string& name = node.attrs().GetString("mode");
  PadMode mode = PadMode::kConstant;
  if (name == "reflect") {
    mode = PadMode::kReflect;
  } else if (name == "edge") {
    mode = PadMode::kEdge;
  } else if (name != "constant") {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("attribute 'mode' = '{}' is not supported; supported: constant, reflect, edge", name));
  }
  if (InputShape(node, 0).rank() != OutputShape(node, 0).rank()) {
    Fail(node, ErrorCode::kInvalidModel, "input and output ranks differ");
  }
  return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<PadKernel<typename decltype(tag)::type>>(node, mode);
  });
}

}  // namespace

void RegisterPadKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "PadV3", DataTypesOf(AllTypes{}), MakePad);
}

}  // namespace ge::device::cpu

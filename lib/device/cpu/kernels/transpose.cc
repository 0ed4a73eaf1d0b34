// TransposeD: permutes the axes. Works on raw elements of 1, 2, 4 or 8 bytes,
// so one kernel serves every dtype.
#include <algorithm>
#include <cstring>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/transpose.h"

namespace ge::device::cpu {

namespace {

// The permutation reduced to its essentials: size-1 axes dropped and input
// axes that stay adjacent in the output merged ([B,S,H,D] -> [B,H,S,D] keeps
// D whole). out_dims[k] is read with input stride in_strides[k].
struct TransposePlan {
  std::vector<int64_t> out_dims;
  std::vector<int64_t> in_strides;
};

TransposePlan PlanTranspose(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& perm) {
  // Input axes kept, renumbered; merged runs of them.
  std::vector<int64_t> kept;
  for (int64_t axis : perm) {
    if (in_dims[axis] != 1) kept.push_back(axis);
  }
  // Runs: maximal sequences in output order with consecutive input axes.
  std::vector<std::vector<int64_t>> runs;
  for (int64_t axis : kept) {
    if (!runs.empty() && runs.back().back() + 1 == axis) {
      runs.back().push_back(axis);
    } else {
      runs.push_back({axis});
    }
  }
  // Input strides of each run: product of the input dims after the run's
  // last axis, counting only kept axes (size-1 axes contribute nothing).
  TransposePlan plan;
  for (const auto& run : runs) {
    int64_t size = 1;
    for (int64_t axis : run) size *= in_dims[axis];
    int64_t stride = 1;
    for (size_t axis = run.back() + 1; axis < in_dims.size(); ++axis) stride *= in_dims[axis];
    plan.out_dims.push_back(size);
    plan.in_strides.push_back(stride);
  }
  if (plan.out_dims.empty()) {
    plan.out_dims.push_back(1);
    plan.in_strides.push_back(1);
  }
  return plan;
}

// The plan as a batch of matrix transposes [batch, rows, columns] <- [batch,
// columns, rows] (NCHW -> NHWC is [N, H*W, C] <- [N, C, H*W]); columns = 0
// when it is none.
struct MatrixBatch {
  int64_t batch = 1, rows = 0, columns = 0;
};

MatrixBatch AsMatrixBatch(const TransposePlan& plan) {
  const std::vector<int64_t>& d = plan.out_dims;
  const std::vector<int64_t>& s = plan.in_strides;
  if (d.size() == 2 && s[0] == 1 && s[1] == d[0]) return {1, d[0], d[1]};
  if (d.size() == 3 && s[1] == 1 && s[2] == d[1] && s[0] == d[1] * d[2]) return {d[0], d[1], d[2]};
  return {};
}

// y[b][r][c] = x[b][c][r] for kColumns columns (an image's few channels
// going last): the input's rows are read in order and interleaved, unrolled
// over the constant column count.
template <typename Element, int kColumns>
void InterleaveColumns(const Element* x, Element* y, const MatrixBatch& m) {
  constexpr int64_t kBlock = 1024;  // rows per task
  const int64_t blocks = (m.rows + kBlock - 1) / kBlock;
  ParallelFor(m.batch * blocks, m.batch * m.rows * kColumns > kParallelGrain, [&](int64_t task) {
    const int64_t b = task / blocks, block = task % blocks;
    {
      const Element* in = x + b * m.rows * kColumns;
      Element* out = y + b * m.rows * kColumns;
      const int64_t end = std::min(m.rows, (block + 1) * kBlock);
      for (int64_t r = block * kBlock; r < end; ++r) {
        // Unrolled, the columns' loads and stores pipeline: about twice as fast as the loop.
#pragma GCC unroll 4
        for (int c = 0; c < kColumns; ++c) out[r * kColumns + c] = in[c * m.rows + r];
      }
    }
  });
}

// A plan and the batch of matrices it may be.
struct TransposeWalk {
  TransposePlan plan;
  MatrixBatch matrices;
};

TransposeWalk WalkOf(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& perm) {
  TransposeWalk walk{PlanTranspose(in_dims, perm), {}};
  walk.matrices = AsMatrixBatch(walk.plan);
  return walk;
}

// Three ways to walk the output. When the output's last dim is contiguous in
// the input too, each output row is one memcpy. A batch of matrices with at
// most 4 columns is interleaved row by row. Otherwise the input's
// contiguous dim sits at some other output position `p`; the kernel then
// copies square tiles of (output dim p) x (output last dim), so that both the
// reads and the writes of a tile stay within a few cache lines.
template <typename Element>
class TransposeKernel final : public Kernel {
 public:
  // `by_shape`: the input is the node's own (TransposeD), so a run at other
  // input dims plans for them; otherwise (DepthToSpace's reshaped view) the
  // kernel runs at the dims it is built for only.
  TransposeKernel(std::vector<int64_t> in_dims, std::vector<int64_t> perm, bool by_shape)
      : in_dims_(std::move(in_dims)), perm_(std::move(perm)), by_shape_(by_shape), walk_(WalkOf(in_dims_, perm_)) {}

  bool TakesShapesAtRun() const override { return by_shape_; }

  void Run(const KernelContext& ctx) const override {
    const auto* x = ctx.inputs[0].as<const Element>();
    auto* y = ctx.outputs[0].as<Element>();
    if (!by_shape_ || ctx.inputs[0].shape->dims() == in_dims_) return Walk(walk_, x, y);
    Walk(WalkOf(ctx.inputs[0].shape->dims(), perm_), x, y);
  }

 private:
  static void Walk(const TransposeWalk& walk, const Element* x, Element* y) {
    const MatrixBatch& m = walk.matrices;
    if (walk.plan.in_strides.back() == 1) {
      CopyRows(walk.plan, x, y);
    } else if (m.columns == 2) {
      InterleaveColumns<Element, 2>(x, y, m);
    } else if (m.columns == 3) {
      InterleaveColumns<Element, 3>(x, y, m);
    } else if (m.columns == 4) {
      InterleaveColumns<Element, 4>(x, y, m);
    } else {
      CopyTiles(walk.plan, x, y);
    }
  }

  static void CopyRows(const TransposePlan& plan, const Element* x, Element* y) {
    const size_t rank = plan.out_dims.size();
    const int64_t inner = plan.out_dims.back();
    int64_t rows = 1;
    for (size_t k = 0; k + 1 < rank; ++k) rows *= plan.out_dims[k];
    ParallelFor(rows, rows * inner > kParallelGrain, [&](int64_t row) {
      int64_t offset = 0;
      int64_t rest = row;
      for (size_t k = rank - 1; k-- > 0;) {
        offset += (rest % plan.out_dims[k]) * plan.in_strides[k];
        rest /= plan.out_dims[k];
      }
      std::memcpy(y + row * inner, x + offset, static_cast<size_t>(inner) * sizeof(Element));
    });
  }

  static void CopyTiles(const TransposePlan& plan, const Element* x, Element* y) {
    constexpr int64_t kTile = 32;
    const size_t rank = plan.out_dims.size();
    const size_t last = rank - 1;
    size_t p = 0;
    while (plan.in_strides[p] != 1) ++p;  // exists: some output dim is the input's innermost
    const std::vector<int64_t> out_strides = RowMajorStrides(plan.out_dims);
    const int64_t p_dim = plan.out_dims[p], l_dim = plan.out_dims[last];
    const int64_t p_out_stride = out_strides[p], l_in_stride = plan.in_strides[last];
    int64_t others = 1;
    for (size_t k = 0; k < last; ++k) others *= k == p ? 1 : plan.out_dims[k];
    const int64_t p_tiles = (p_dim + kTile - 1) / kTile;
    const int64_t total = others * p_dim * l_dim;
    ParallelFor(others * p_tiles, total > kParallelGrain, [&](int64_t task) {
      const int64_t o = task / p_tiles, pt = task % p_tiles;
      {
        // Offsets of this combination of the other dims.
        int64_t in_base = 0, out_base = 0, rest = o;
        for (size_t k = last; k-- > 0;) {
          if (k == p) continue;
          const int64_t index = rest % plan.out_dims[k];
          rest /= plan.out_dims[k];
          in_base += index * plan.in_strides[k];
          out_base += index * out_strides[k];
        }
        const int64_t i_end = std::min(p_dim, (pt + 1) * kTile);
        for (int64_t lt = 0; lt < l_dim; lt += kTile) {
          const int64_t j_end = std::min(l_dim, lt + kTile);
          for (int64_t i = pt * kTile; i < i_end; ++i) {
            Element* out = y + out_base + i * p_out_stride;
            const Element* in = x + in_base + i;
            for (int64_t j = lt; j < j_end; ++j) out[j] = in[j * l_in_stride];
          }
        }
      }
    });
  }

  std::vector<int64_t> in_dims_, perm_;
  bool by_shape_;
  TransposeWalk walk_;  // for in_dims_
};

std::unique_ptr<Kernel> MakeTranspose(const Node& node) {
  const Shape& in = InputShape(node, 0);
  std::vector<int64_t> perm = NormalizeAxesOf(node, node.attrs().GetInts("perm"), in.rank(), "perm");
  if (perm.size() != in.rank()) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'perm' has {} entries for an input of rank {}", perm.size(), in.rank()));
  }
  return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<TransposeKernel<typename decltype(tag)::type>>(in.dims(), perm, /*by_shape=*/true);
  });
}

}  // namespace

std::unique_ptr<Kernel> MakeTransposeKernel(const Node& node, const std::vector<int64_t>& in_dims,
                                            const std::vector<int64_t>& perm) {
  return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<TransposeKernel<typename decltype(tag)::type>>(in_dims, perm, /*by_shape=*/false);
  });
}

void RegisterTransposeKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "TransposeD", DataTypesOf(AllTypes{}), MakeTranspose);
}

}  // namespace ge::device::cpu

// The quantized form of MatMulV2 and BatchMatMulV2: x1 int8 (MatMulV2 also
// int16) with zero point offset_x, x2 int8 (symmetric), optional bias int32
// [N]: y int32 = sum((x1 - offset_x) * x2) + bias.
//
// int8 x1 runs oneDNN's int8 matmul (VNNI where the CPU has it): a constant
// x2 is packed once, transposes are strides, batch dims broadcast, and x1's
// zero point is a runtime zero-point attribute. On CPUs without VNNI, x1
// goes in as u8 and an x2 wider than [-64, 64] (a runtime x2 always) is split
// in two along K (int8_pair_sums.h), so the sums stay exact. int16 x1 runs a
// direct loop accumulating in int64, saturated to int32.
#include <limits>
#include <optional>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/dnnl_utils.h"
#include "device/cpu/kernels/int8_pair_sums.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

using Type = dnnl::memory::data_type;

// One operand as [batch..., rows, cols] after its transpose, padded to the output's rank.
struct Operand {
  std::vector<int64_t> dims;     // logical
  std::vector<int64_t> strides;  // in elements, of the stored tensor
};

Operand ReadOperand(const Node& node, size_t input, bool transposed, size_t rank) {
  const Shape& shape = InputShape(node, input);
  if (shape.rank() < 2) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("input {} {}: the quantized matmul takes matrices (rank >= 2)", input, shape.ToString()));
  }
  std::vector<int64_t> stored(rank - shape.rank(), 1);
  stored.insert(stored.end(), shape.dims().begin(), shape.dims().end());
  Operand op{stored, RowMajorStrides(stored)};
  if (transposed) {
    std::swap(op.dims[rank - 2], op.dims[rank - 1]);
    std::swap(op.strides[rank - 2], op.strides[rank - 1]);
  }
  return op;
}

struct MatMulPlan {
  Operand x1, x2;
  std::vector<int64_t> y;
  int64_t m = 0, k = 0, n = 0;
  bool has_bias = false;
  int32_t offset_x = 0;
};

MatMulPlan Plan(const Node& node, const char* transpose_x1, const char* transpose_x2) {
  RequireInputDtype(node, 1, {DataType::kInt8});
  if (HasInput(node, 2)) RequireInputDtype(node, 2, {DataType::kInt32});
  if (HasInput(node, 3)) Fail(node, ErrorCode::kUnsupported, "offset_w (an x2 zero point) is not supported");
  if (node.output(0)->dtype() != DataType::kInt32) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("output y is {}; with {} x1 it must be int32", DataTypeName(node.output(0)->dtype()),
                     DataTypeName(InputDtype(node, 0))));
  }
  MatMulPlan p;
  p.y = OutputShape(node, 0).dims();
  const size_t rank = p.y.size();
  if (rank < 2 || InputShape(node, 0).rank() > rank || InputShape(node, 1).rank() > rank) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("output {} must be a (batch of) matrices of x1 and x2's rank", OutputShape(node, 0).ToString()));
  }
  p.x1 = ReadOperand(node, 0, node.attrs().GetBool(transpose_x1), rank);
  p.x2 = ReadOperand(node, 1, node.attrs().GetBool(transpose_x2), rank);
  p.m = p.x1.dims[rank - 2];
  p.k = p.x1.dims[rank - 1];
  p.n = p.x2.dims[rank - 1];
  bool fits = p.x2.dims[rank - 2] == p.k && p.y[rank - 2] == p.m && p.y[rank - 1] == p.n;
  for (size_t a = 0; a + 2 < rank; ++a) {
    const int64_t d1 = p.x1.dims[a], d2 = p.x2.dims[a];
    fits = fits && (d1 == p.y[a] || d1 == 1) && (d2 == p.y[a] || d2 == 1);
  }
  if (!fits) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("x1 {} ({} = {}) and x2 {} ({} = {}) do not multiply into y {}", InputShape(node, 0).ToString(),
                     transpose_x1, node.attrs().GetBool(transpose_x1), InputShape(node, 1).ToString(), transpose_x2,
                     node.attrs().GetBool(transpose_x2), OutputShape(node, 0).ToString()));
  }
  p.has_bias = HasInput(node, 2);
  if (p.has_bias && InputShape(node, 2).NumElements() != p.n) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("bias {} must have N = {} elements", InputShape(node, 2).ToString(), p.n));
  }
  const int64_t offset_x = node.attrs().GetInt("offset_x");
  const bool int8 = InputDtype(node, 0) == DataType::kInt8;
  const int64_t lo = int8 ? std::numeric_limits<int8_t>::lowest() : std::numeric_limits<int16_t>::lowest();
  const int64_t hi = int8 ? std::numeric_limits<int8_t>::max() : std::numeric_limits<int16_t>::max();
  if (offset_x < lo || offset_x > hi) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'offset_x' is {}; for {} x1 it must lie in [{}, {}]", offset_x,
                     DataTypeName(InputDtype(node, 0)), lo, hi));
  }
  p.offset_x = static_cast<int32_t>(offset_x);
  return p;
}

dnnl::memory::desc Desc(const Operand& op, Type type) {
  return dnnl::memory::desc(ToDnnlDims(op.dims), type, ToDnnlDims(op.strides));
}

// An operand's matrices in row-major order: each one's element offset, and
// the row and column strides.
struct Matrices {
  std::vector<int64_t> offsets;
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;

  explicit Matrices(const Operand& op) {
    const size_t rank = op.dims.size();
    rows = op.dims[rank - 2];
    cols = op.dims[rank - 1];
    row_stride = op.strides[rank - 2];
    col_stride = op.strides[rank - 1];
    offsets = {0};
    for (size_t a = 0; a + 2 < rank; ++a) {
      std::vector<int64_t> next;
      for (const int64_t base : offsets) {
        for (int64_t i = 0; i < op.dims[a]; ++i) next.push_back(base + i * op.strides[a]);
      }
      offsets = std::move(next);
    }
  }

  int8_t At(const int8_t* data, size_t matrix, int64_t row, int64_t col) const {
    return data[offsets[matrix] + row * row_stride + col * col_stride];
  }
};

// x1 as u8 in row-major [batch..., M, K], or [batch..., M, 2K] with each row
// taken twice when x2 is split.
void WriteUnsignedX1(const Matrices& x1, bool doubled, const int8_t* data, uint8_t* out) {
  const int64_t out_cols = x1.cols * (doubled ? 2 : 1);
  const auto rows = static_cast<int64_t>(x1.offsets.size()) * x1.rows;
#pragma omp parallel for if (rows * out_cols > kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const int8_t* in = data + x1.offsets[static_cast<size_t>(r / x1.rows)] + (r % x1.rows) * x1.row_stride;
    uint8_t* row = out + r * out_cols;
    if (x1.col_stride == 1) {
      ToUnsignedSpan(in, row, x1.cols);
    } else {
      for (int64_t c = 0; c < x1.cols; ++c) row[c] = ToUnsigned(in[c * x1.col_stride]);
    }
    if (doubled) std::copy(row, row + x1.cols, row + x1.cols);
  }
}

// x2 in row-major [batch..., 2K, N]: the pair-safe high parts of its K rows,
// then the low parts.
void WriteSplitX2(const Matrices& x2, const int8_t* data, int8_t* out) {
  for (size_t matrix = 0; matrix < x2.offsets.size(); ++matrix) {
    int8_t* high = out + static_cast<int64_t>(matrix) * 2 * x2.rows * x2.cols;
    int8_t* low = high + x2.rows * x2.cols;
    for (int64_t r = 0; r < x2.rows; ++r) {
      for (int64_t c = 0; c < x2.cols; ++c) {
        const int8_t w = x2.At(data, matrix, r, c);
        high[r * x2.cols + c] = PairSafeHigh(w);
        low[r * x2.cols + c] = PairSafeLow(w);
      }
    }
  }
}

// The dims with K (axis `k_axis`) doubled, row-major.
dnnl::memory::desc DoubledKDesc(std::vector<int64_t> dims, size_t k_axis, Type type) {
  dims[k_axis] *= 2;
  return dnnl::memory::desc(ToDnnlDims(dims), type, ToDnnlDims(RowMajorStrides(dims)));
}

class DnnlInt8MatMulKernel final : public Kernel {
 public:
  DnnlInt8MatMulKernel(const Node& node, const MatMulPlan& p)
      : label_(node.Describe()), x1_(p.x1), x2_(p.x2) {
    const size_t rank = p.y.size();
    src_ = Desc(p.x1, Type::s8);
    dnnl::memory::desc weights_user = Desc(p.x2, Type::s8);
    const Tensor* constant_x2 = node.input(1)->constant();
    int32_t offset_x = p.offset_x;
    std::vector<int8_t> split_x2;
    if (!DnnlInt8HasVnni()) {
      unsigned_x1_ = true;
      offset_x += kUnsignedShift;
      if (p.k > 1 && constant_x2 != nullptr) {
        split_ = !WeightsArePairSafe(
            {constant_x2->data_as<int8_t>(), static_cast<size_t>(constant_x2->num_elements())});
      } else {
        split_ = p.k > 1;  // a runtime x2 is not known in advance
      }
      if (split_) {
        weights_user = DoubledKDesc(p.x2.dims, rank - 2, Type::s8);
        if (constant_x2 != nullptr) {
          split_x2.resize(weights_user.get_size());
          WriteSplitX2(x2_, constant_x2->data_as<int8_t>(), split_x2.data());
        }
      }
      src_ = split_ ? DoubledKDesc(p.x1.dims, rank - 1, Type::u8)
                    : dnnl::memory::desc(ToDnnlDims(p.x1.dims), Type::u8, ToDnnlDims(RowMajorStrides(p.x1.dims)));
    }
    const dnnl::memory::desc weights_build =
        constant_x2 != nullptr
            ? dnnl::memory::desc(weights_user.dims(), Type::s8, dnnl::memory::format_tag::any)
            : weights_user;
    dst_ = dnnl::memory::desc(ToDnnlDims(p.y), Type::s32, ToDnnlDims(RowMajorStrides(p.y)));
    if (p.has_bias) {
      std::vector<int64_t> bias_dims(rank, 1);
      bias_dims.back() = p.n;
      bias_ = dnnl::memory::desc(ToDnnlDims(bias_dims), Type::s32, ToDnnlDims(RowMajorStrides(bias_dims)));
    }
    dnnl::primitive_attr attr = DnnlAttributes();
    if (offset_x != 0) {
      attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      zero_point_ = dnnl::memory({{1}, Type::s32, dnnl::memory::format_tag::a}, CpuEngine());
      *static_cast<int32_t*>(zero_point_->get_data_handle()) = offset_x;
    }
    const dnnl::matmul::desc desc =
        bias_ ? dnnl::matmul::desc(src_, weights_build, *bias_, dst_) : dnnl::matmul::desc(src_, weights_build, dst_);
    const dnnl::matmul::primitive_desc pd(desc, attr, CpuEngine());
    primitive_ = dnnl::matmul(pd);
    weights_ = pd.weights_desc();
    scratchpad_ = pd.scratchpad_desc();
    if (constant_x2 != nullptr) {
      packed_weights_ =
          PackConstant(*constant_x2, split_x2.empty() ? constant_x2->data() : split_x2.data(), weights_user, weights_);
    }
    // The workspace: oneDNN's scratchpad, then the u8 x1, then a runtime x2's split.
    x1_offset_ = AlignUp(scratchpad_.get_size());
    x2_offset_ = x1_offset_ + (unsigned_x1_ ? AlignUp(src_.get_size()) : 0);
    workspace_ = x2_offset_ + (split_ && constant_x2 == nullptr ? weights_.get_size() : 0);
  }

  size_t WorkspaceBytes() const override { return workspace_; }

  void Run(const KernelContext& ctx) const override {
    char* workspace = static_cast<char*>(ctx.workspace);
    const void* x1 = ctx.inputs[0].data;
    if (unsigned_x1_) {
      WriteUnsignedX1(x1_, split_, static_cast<const int8_t*>(x1), reinterpret_cast<uint8_t*>(workspace + x1_offset_));
      x1 = workspace + x1_offset_;
    }
    const void* x2 = ctx.inputs[1].data;
    if (split_ && !packed_weights_) {
      WriteSplitX2(x2_, static_cast<const int8_t*>(x2), reinterpret_cast<int8_t*>(workspace + x2_offset_));
      x2 = workspace + x2_offset_;
    }
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, WrapBuffer(src_, x1)},
        {DNNL_ARG_WEIGHTS, packed_weights_ ? *packed_weights_ : WrapBuffer(weights_, x2)},
        {DNNL_ARG_DST, WrapBuffer(dst_, ctx.outputs[0].data)}};
    if (bias_) args.emplace(DNNL_ARG_BIAS, WrapBuffer(*bias_, ctx.inputs[2].data));
    if (zero_point_) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, *zero_point_);
    ExecuteDnnl(label_, primitive_, std::move(args), scratchpad_, ctx.workspace);
  }

 private:
  static size_t AlignUp(size_t bytes) { return (bytes + 63) / 64 * 64; }

  std::string label_;
  Matrices x1_, x2_;
  bool unsigned_x1_ = false, split_ = false;
  size_t x1_offset_ = 0, x2_offset_ = 0, workspace_ = 0;
  dnnl::matmul primitive_;
  dnnl::memory::desc src_, weights_, dst_, scratchpad_;
  std::optional<dnnl::memory::desc> bias_;
  std::optional<PackedConstant> packed_weights_;
  std::optional<dnnl::memory> zero_point_;
};

// 2-D int16 x1 [M, K] (MatMulV2 only): int64 sums saturated to int32.
class Int16MatMulKernel final : public Kernel {
 public:
  explicit Int16MatMulKernel(MatMulPlan p) : p_(std::move(p)) {}

  void Run(const KernelContext& ctx) const override {
    const int16_t* x1 = ctx.inputs[0].as<const int16_t>();
    const int8_t* x2 = ctx.inputs[1].as<const int8_t>();
    const int32_t* bias = p_.has_bias ? ctx.inputs[2].as<const int32_t>() : nullptr;
    int32_t* y = ctx.outputs[0].as<int32_t>();
    const int64_t a_row = p_.x1.strides[0], a_col = p_.x1.strides[1];
    const int64_t b_row = p_.x2.strides[0], b_col = p_.x2.strides[1];
#pragma omp parallel for if (p_.m * p_.k * p_.n > kParallelGrain)
    for (int64_t i = 0; i < p_.m; ++i) {
      std::vector<int64_t> acc(p_.n, 0);
      for (int64_t l = 0; l < p_.k; ++l) {
        const int64_t a = int64_t{x1[i * a_row + l * a_col]} - p_.offset_x;
        for (int64_t j = 0; j < p_.n; ++j) acc[j] += a * x2[l * b_row + j * b_col];
      }
      for (int64_t j = 0; j < p_.n; ++j) {
        const int64_t v = acc[j] + (bias != nullptr ? bias[j] : 0);
        y[i * p_.n + j] = static_cast<int32_t>(
            std::clamp<int64_t>(v, std::numeric_limits<int32_t>::lowest(), std::numeric_limits<int32_t>::max()));
      }
    }
  }

 private:
  MatMulPlan p_;
};

std::unique_ptr<Kernel> MakeQuantizedMatMul(const Node& node) {
  RequireInputDtype(node, 0, {DataType::kInt8, DataType::kInt16});
  MatMulPlan p = Plan(node, "transpose_x1", "transpose_x2");
  if (InputDtype(node, 0) == DataType::kInt16) {
    if (p.y.size() != 2) Fail(node, ErrorCode::kUnsupported, "int16 x1 takes 2-D operands only");
    return std::make_unique<Int16MatMulKernel>(std::move(p));
  }
  return BuildDnnl(node, [&] { return std::make_unique<DnnlInt8MatMulKernel>(node, p); });
}

std::unique_ptr<Kernel> MakeQuantizedBatchMatMul(const Node& node) {
  RequireInputDtype(node, 0, {DataType::kInt8});
  const MatMulPlan p = Plan(node, "adj_x1", "adj_x2");
  if (p.offset_x != 0) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("attribute 'offset_x' is {}; the quantized BatchMatMulV2 is symmetric (0 only)", p.offset_x));
  }
  return BuildDnnl(node, [&] { return std::make_unique<DnnlInt8MatMulKernel>(node, p); });
}

}  // namespace

void RegisterQuantizedMatMulKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "MatMulV2", {DataType::kInt8, DataType::kInt16}, MakeQuantizedMatMul);
  RegisterKernel(registry, "BatchMatMulV2", {DataType::kInt8}, MakeQuantizedBatchMatMul);
}

}  // namespace ge::device::cpu

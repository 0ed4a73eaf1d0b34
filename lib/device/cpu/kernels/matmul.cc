// MatMulV2 and BatchMatMulV2 (numpy matmul: batch broadcasting, 1-D
// operands, transposed operands, optional bias [N]). float32 runs through
// oneDNN's matmul primitive; a constant x2 (the weights of a fully connected
// layer) is reordered once into oneDNN's preferred layout. The dtypes oneDNN
// lacks (float64, float16, bfloat16 and the 32/64-bit integers of ONNX
// MatMul) run a direct loop: floats accumulate in double, integers in their
// own width with wrap-around. In high_performance or
// enable_hi_float_32_execution mode the float dtypes multiply bfloat16-rounded
// operands with float32 accumulation instead (bf16_products.h).
#include <algorithm>
#include <optional>
#include <concepts>
#include <type_traits>

#include <omp.h>

#include <fmt/core.h>

#include "device/cpu/kernels/bf16_products.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/dnnl_utils.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/few_rows_product.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/packed_rows_product.h"
#include "device/cpu/kernels/weight_tiled_matmul.h"
#include "graph/shape_inference_utils.h"
#include "graph/shapes_at_run.h"

namespace ge::device::cpu {

namespace {

// One operand as a batch of matrices. A 1-D x1 is a [1, K] row and a 1-D x2
// a [K, 1] column (numpy); the extra dim is absent from the output shape but
// not from the memory layout, so the output buffer is used as is.
struct MatrixOperand {
  std::vector<int64_t> batch;
  int64_t rows = 0, cols = 0;  // logical, after the transpose
  bool transposed = false;      // stored as [cols, rows]
};

MatrixOperand ReadOperand(const Shape& shape, bool transpose, bool is_x1) {
  MatrixOperand m;
  if (shape.rank() == 1) {
    m.rows = is_x1 ? 1 : shape.dim(0);
    m.cols = is_x1 ? shape.dim(0) : 1;
    return m;
  }
  m.batch.assign(shape.dims().begin(), shape.dims().end() - 2);
  const int64_t r0 = shape.dim(shape.rank() - 2), r1 = shape.dim(shape.rank() - 1);
  m.transposed = transpose;
  m.rows = transpose ? r1 : r0;
  m.cols = transpose ? r0 : r1;
  return m;
}

// The operand's descriptor with its batch padded to `rank - 2` dims; the
// transpose is expressed through strides, so no data moves.
dnnl::memory::desc OperandDesc(const MatrixOperand& m, size_t rank,
                               dnnl::memory::data_type type = dnnl::memory::data_type::f32) {
  std::vector<int64_t> dims(rank - 2 - m.batch.size(), 1);
  dims.insert(dims.end(), m.batch.begin(), m.batch.end());
  std::vector<int64_t> stored = dims;
  stored.push_back(m.transposed ? m.cols : m.rows);
  stored.push_back(m.transposed ? m.rows : m.cols);
  std::vector<int64_t> strides = RowMajorStrides(stored);
  if (m.transposed) std::swap(strides[rank - 2], strides[rank - 1]);
  dims.push_back(m.rows);
  dims.push_back(m.cols);
  return dnnl::memory::desc(ToDnnlDims(dims), type, ToDnnlDims(strides));
}

class MatMulKernel final : public Kernel {
 public:
  MatMulKernel(const Node& node, const dnnl::matmul::primitive_desc& pd, const dnnl::memory::desc& user_b,
               std::optional<dnnl::memory::desc> bias)
      : label_(node.Describe()),
        primitive_(pd),
        a_(pd.src_desc()),
        b_(pd.weights_desc()),
        dst_(pd.dst_desc()),
        scratchpad_(pd.scratchpad_desc()),
        bias_(std::move(bias)) {
    if (const Tensor* constant_b = node.input(1)->constant()) packed_b_ = PackConstant(*constant_b, user_b, b_);
  }

  void Run(const KernelContext& ctx) const override {
    std::unordered_map<int, dnnl::memory> args;
    args.emplace(DNNL_ARG_SRC, WrapBuffer(a_, ctx.inputs[0].data));
    args.emplace(DNNL_ARG_WEIGHTS, packed_b_ ? *packed_b_ : WrapBuffer(b_, ctx.inputs[1].data));
    if (bias_) args.emplace(DNNL_ARG_BIAS, WrapBuffer(*bias_, ctx.inputs[2].data));
    args.emplace(DNNL_ARG_DST, WrapBuffer(dst_, ctx.outputs[0].data));
    ExecuteDnnl(label_, primitive_, std::move(args), scratchpad_, ctx.workspace);
  }

  size_t WorkspaceBytes() const override { return scratchpad_.get_size(); }

  std::vector<PackedInput> PackedInputs() const override {
    if (!packed_b_) return {};
    return {DescribePacked(1, *packed_b_)};
  }

 private:
  std::string label_;
  dnnl::matmul primitive_;
  dnnl::memory::desc a_, b_, dst_, scratchpad_;
  std::optional<dnnl::memory::desc> bias_;
  std::optional<PackedConstant> packed_b_;
};

using DirectMatMulTypes = TypeList<double, _Float16, BFloat16, int32_t, uint32_t, int64_t, uint64_t>;

// float32 (oneDNN) and the direct loop's dtypes.
const std::vector<DataType>& MatMulDtypes() {
  static const std::vector<DataType> dtypes = [] {
    std::vector<DataType> all = DataTypesOf(DirectMatMulTypes{});
    all.insert(all.begin(), DataType::kFloat);
    return all;
  }();
  return dtypes;
}

// Accumulator of the direct loop: double for the float types; for integers
// the unsigned type of the same width, whose arithmetic wraps (two's
// complement) where the signed one would overflow.
template <typename T>
struct AccumulatorOf {
  using type = double;
};
template <std::integral T>
struct AccumulatorOf<T> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using Accumulator = typename AccumulatorOf<T>::type;

template <typename T>
Accumulator<T> Widen(T v) {
  return static_cast<Accumulator<T>>(Load(v));
}

// Element strides of a stored operand: logical (row, col) -> row * row_stride + col * col_stride.
struct MatrixStrides {
  int64_t row, col, matrix;
};
MatrixStrides StridesOf(const MatrixOperand& m) {
  return m.transposed ? MatrixStrides{1, m.rows, m.rows * m.cols} : MatrixStrides{m.cols, 1, m.rows * m.cols};
}

// The offsets (in matrices) of x1 and x2 for each output matrix, following numpy batch broadcasting.
std::vector<int64_t> BatchOffsets(const std::vector<int64_t>& operand_batch, const Shape& batch) {
  const std::vector<int64_t> padded = [&] {
    std::vector<int64_t> dims(batch.rank() - operand_batch.size(), 1);
    dims.insert(dims.end(), operand_batch.begin(), operand_batch.end());
    return dims;
  }();
  const std::vector<int64_t> strides = RowMajorStrides(padded);
  std::vector<int64_t> offsets(batch.NumElements());
  for (int64_t flat = 0; flat < batch.NumElements(); ++flat) {
    int64_t rest = flat, offset = 0;
    for (size_t a = batch.rank(); a-- > 0;) {
      const int64_t index = rest % batch.dim(a);
      rest /= batch.dim(a);
      if (padded[a] != 1) offset += index * strides[a];
    }
    offsets[flat] = offset;
  }
  return offsets;
}

template <typename T>
class DirectMatMulKernel final : public Kernel {
 public:
  DirectMatMulKernel(const MatrixOperand& a, const MatrixOperand& b, const Shape& batch, bool has_bias)
      : a_(StridesOf(a)),
        b_(StridesOf(b)),
        a_offsets_(BatchOffsets(a.batch, batch)),
        b_offsets_(BatchOffsets(b.batch, batch)),
        m_(a.rows),
        k_(a.cols),
        n_(b.cols),
        a_elements_(Product(a.batch) * a.rows * a.cols),
        b_elements_(Product(b.batch) * b.rows * b.cols),
        has_bias_(has_bias) {}

  void Run(const KernelContext& ctx) const override {
    const T* x1 = ctx.inputs[0].as<T>();
    const T* x2 = ctx.inputs[1].as<T>();
    const T* bias = has_bias_ ? ctx.inputs[2].as<T>() : nullptr;
    T* y = ctx.outputs[0].as<T>();
    if constexpr (kIsHalf<T>) {
      const std::vector<float> wide_bias = has_bias_ ? Widened(bias, n_) : std::vector<float>{};
      Multiply(Widened(x1, a_elements_).data(), Widened(x2, b_elements_).data(),
               has_bias_ ? wide_bias.data() : nullptr, y);
    } else {
      Multiply(x1, x2, bias, y);
    }
  }

 private:
  // S: the element type read (T, or float for the half types, widened once per run).
  template <typename S>
  void Multiply(const S* x1, const S* x2, const S* bias, T* y) const {
    using Acc = Accumulator<S>;
    const int64_t rows = static_cast<int64_t>(a_offsets_.size()) * m_;
    const bool parallel = rows > 1 && rows * k_ * n_ > kParallelGrain;
#pragma omp parallel for if (parallel)
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t matrix = row / m_, i = row % m_;
      const S* a = x1 + a_offsets_[matrix] * a_.matrix + i * a_.row;
      const S* b = x2 + b_offsets_[matrix] * b_.matrix;
      std::vector<Acc> acc(n_);
      for (int64_t j = 0; j < n_; ++j) acc[j] = bias != nullptr ? Widen(bias[j]) : Acc{};
      if (b_.col == 1) {
        // x2 rows are contiguous: add a[p] * x2[p, :] row by row.
        for (int64_t p = 0; p < k_; ++p) {
          const Acc ap = Widen(a[p * a_.col]);
          const S* b_row = b + p * b_.row;
          for (int64_t j = 0; j < n_; ++j) acc[j] += ap * Widen(b_row[j]);
        }
      } else {
        // x2 is stored transposed: its columns are contiguous, so take dot products.
        for (int64_t j = 0; j < n_; ++j) {
          const S* b_col = b + j * b_.col;
          Acc sum{};
          for (int64_t p = 0; p < k_; ++p) sum += Widen(a[p * a_.col]) * Widen(b_col[p]);
          acc[j] += sum;
        }
      }
      T* dst = y + row * n_;
      for (int64_t j = 0; j < n_; ++j) dst[j] = Store<T>(static_cast<Compute<T>>(acc[j]));
    }
  }

  MatrixStrides a_, b_;
  std::vector<int64_t> a_offsets_, b_offsets_;
  int64_t m_, k_, n_, a_elements_, b_elements_;
  bool has_bias_;
};

// When x2 is one matrix for every batch (no batch dims, or all of them 1)
// and x1 is stored untransposed, x1's batch of [M, K] matrices lies in memory
// as one [batch * M, K] matrix and the output [batch..., M, N] as one
// [batch * M, N]: a single GEMM with batch * M rows replaces batch small ones
// (a batch of M = 1 products would otherwise run as matrix-vector products).
void FoldBatchIntoRows(MatrixOperand& a, MatrixOperand& b) {
  if (Product(b.batch) != 1 || a.transposed || a.batch.empty()) return;
  a.rows *= Product(a.batch);
  a.batch.clear();
  b.batch.clear();
}

// C[m, n] = op(A) op(B), plus the bias row on every row when there is one,
// for row-major operands stored whole (op transposes a stored matrix).
// oneDNN's sgemm adds the product to C's bias rows (beta 1) or overwrites C
// (beta 0); an empty K leaves the bias (or zeros), which sgemm would refuse.
void SgemmWithBias(const std::string& label, bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
                   const float* a, const float* b, const float* bias, float* c) {
  for (int64_t row = 0; bias != nullptr && row < m; ++row) std::copy(bias, bias + n, c + row * n);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (bias == nullptr) std::fill(c, c + m * n, 0.0f);
    return;
  }
  const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m, n, k, 1.0f, a,
                                          transpose_a ? m : k, b, transpose_b ? k : n, bias != nullptr ? 1.0f : 0.0f,
                                          c, n);
  if (status != dnnl_success) {
    throw Error(ErrorCode::kInternal,
                fmt::format("{}: oneDNN sgemm failed with status {}", label, static_cast<int>(status)));
  }
}

// The float32 kernels of a dynamic model (graph/shapes_at_run.h), which read
// every dim at run time. Two variable operands (attention's q @ k^T, whose
// key length grows every token) multiply one matrix of the batch at a time
// with no primitive built per shape: a few rows (a decoder's token) by
// FewRowsProduct, more through oneDNN's sgemm.
class RunShapedMatMulKernel final : public Kernel {
 public:
  RunShapedMatMulKernel(const Node& node, bool transpose_a, bool transpose_b)
      : label_(node.Describe()), transpose_a_(transpose_a), transpose_b_(transpose_b), has_bias_(HasInput(node, 2)) {}

  bool TakesShapesAtRun() const override { return true; }

  void Run(const KernelContext& ctx) const override {
    MatrixOperand a = ReadOperand(*ctx.inputs[0].shape, transpose_a_, /*is_x1=*/true);
    MatrixOperand b = ReadOperand(*ctx.inputs[1].shape, transpose_b_, /*is_x1=*/false);
    FoldBatchIntoRows(a, b);
    Shape batch;
    try {
      batch = BroadcastShapes(Shape(a.batch), Shape(b.batch));
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: batch dims do not broadcast: {}", label_, e.what()));
    }
    const int64_t m = a.rows, k = a.cols, n = b.cols;
    if (a.cols != b.rows || batch.NumElements() * m * n != ctx.outputs[0].num_elements()) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: x1 {} @ x2 {} does not give the output {}", label_,
                                                           ctx.inputs[0].shape->ToString(),
                                                           ctx.inputs[1].shape->ToString(),
                                                           ctx.outputs[0].shape->ToString()));
    }
    const std::vector<int64_t> a_offsets = BatchOffsets(a.batch, batch);
    const std::vector<int64_t> b_offsets = BatchOffsets(b.batch, batch);
    const auto* x1 = ctx.inputs[0].as<const float>();
    const auto* x2 = ctx.inputs[1].as<const float>();
    const float* bias = has_bias_ ? ctx.inputs[2].as<const float>() : nullptr;
    auto* y = ctx.outputs[0].as<float>();
    const bool few_rows = !a.transposed && m <= kFewRows;
    for (size_t matrix = 0; matrix < a_offsets.size(); ++matrix) {
      const float* a_matrix = x1 + a_offsets[matrix] * m * k;
      const float* b_matrix = x2 + b_offsets[matrix] * k * n;
      float* y_matrix = y + static_cast<int64_t>(matrix) * m * n;
      if (few_rows) {
        FewRowsProduct(m, n, k, a_matrix, b_matrix, b.transposed, bias, y_matrix);
      } else {
        SgemmWithBias(label_, a.transposed, b.transposed, m, n, k, a_matrix, b_matrix, bias, y_matrix);
      }
    }
  }

 private:
  std::string label_;
  bool transpose_a_, transpose_b_, has_bias_;
};

// A constant [K, N] weight (a linear layer) times x with any number of rows.
// By default the weight is read where it is, so a dynamic model holds no
// packed copy of its own: few rows (a decoder's tokens) through
// WeightTiledMatMul's direct path, which reads W once, more through oneDNN's
// sgemm. When the model packs its weights (PacksWeightsAtRun: it keeps them
// only packed, or ge.exec.dynamicPackWeights), every row count multiplies one
// packed copy of W, shared with the model's plans (PackedRowsProduct), and W
// itself is no longer read.
class WeightRowsMatMulKernel final : public Kernel {
 public:
  WeightRowsMatMulKernel(const Node& node, int64_t k, int64_t n, bool transposed_weight)
      : label_(node.Describe()),
        k_(k),
        n_(n),
        transposed_weight_(transposed_weight),
        has_bias_(HasInput(node, 2)),
        threads_(omp_get_max_threads()) {
    if (PacksWeightsAtRun(node)) packed_.emplace(*node.input(1)->constant(), k, n, transposed_weight, has_bias_);
  }

  bool TakesShapesAtRun() const override { return true; }
  size_t WorkspaceBytes() const override { return packed_ ? 0 : WeightTileWorkspaceBytes(k_, threads_); }
  std::vector<PackedInput> PackedInputs() const override {
    return packed_ ? packed_->PackedInputs() : std::vector<PackedInput>{};
  }

  void Run(const KernelContext& ctx) const override {
    const int64_t rows = ctx.inputs[0].num_elements() / k_;
    const auto* x = ctx.inputs[0].as<const float>();
    const float* bias = has_bias_ ? ctx.inputs[2].as<const float>() : nullptr;
    auto* y = ctx.outputs[0].as<float>();
    if (packed_) return packed_->Run(label_, x, rows, bias, y);
    if (rows > kReadOnceRows) {
      return SgemmWithBias(label_, /*transpose_a=*/false, transposed_weight_, rows, n_, k_, x,
                           ctx.inputs[1].as<const float>(), bias, y);
    }
    TiledWeight w;
    w.data = ctx.inputs[1].data;
    w.dtype = DataType::kFloat;
    w.k = k_;
    w.n = n_;
    w.transposed = transposed_weight_;
    WeightTiledMatMul(label_, x, rows, w, bias, TileActivation::kNone, y, ctx.workspace, threads_);
  }

 private:
  // Up to this many rows reading W once bounds the product (a decoder's
  // tokens); beyond, the arithmetic does, and oneDNN's sgemm (which blocks
  // for registers and caches) multiplies W where it is.
  static constexpr int64_t kReadOnceRows = 4;

  std::string label_;
  int64_t k_, n_;
  bool transposed_weight_, has_bias_;
  int threads_;
  std::optional<PackedRowsProduct> packed_;
};

// The kernel of a dynamic model's float32 product (graph/shapes_at_run.h), or
// null where the shape-specialized oneDNN kernel must serve (x1 transposed
// against a constant weight, a weight with batch dims).
std::unique_ptr<Kernel> MakeRunShapedMatMul(const Node& node, const MatrixOperand& a, const MatrixOperand& b,
                                            bool transpose_a, bool transpose_b) {
  if (node.input(1)->constant() == nullptr) return std::make_unique<RunShapedMatMulKernel>(node, transpose_a, transpose_b);
  if (a.transposed || InputShape(node, 1).rank() != 2 || b.rows == 0 || b.cols == 0) return nullptr;
  return std::make_unique<WeightRowsMatMulKernel>(node, b.rows, b.cols, b.transposed);
}

std::unique_ptr<Kernel> MakeMatMul(const Node& node, const char* transpose_a_attr, const char* transpose_b_attr) {
  RequireInputDtype(node, 0, MatMulDtypes());
  const DataType dtype = InputDtype(node, 0);
  RequireInputDtype(node, 1, {dtype});
  if (HasInput(node, 3) || node.attrs().GetInt("offset_x") != 0) {
    Fail(node, ErrorCode::kUnsupported,
         "offset_w / offset_x (quantized matmul) are not supported by the float and integer kernels");
  }
  const Shape& a_shape = InputShape(node, 0);
  const Shape& b_shape = InputShape(node, 1);
  if (a_shape.rank() == 0 || b_shape.rank() == 0) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("operands must have rank >= 1, got {} and {}", a_shape.ToString(), b_shape.ToString()));
  }
  MatrixOperand a = ReadOperand(a_shape, node.attrs().GetBool(transpose_a_attr), /*is_x1=*/true);
  MatrixOperand b = ReadOperand(b_shape, node.attrs().GetBool(transpose_b_attr), /*is_x1=*/false);
  if (a.cols != b.rows) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("inner dimensions differ: x1 {} gives K = {}, x2 {} gives K = {} ({} = {}, {} = {})",
                     a_shape.ToString(), a.cols, b_shape.ToString(), b.rows, transpose_a_attr,
                     node.attrs().GetBool(transpose_a_attr), transpose_b_attr, node.attrs().GetBool(transpose_b_attr)));
  }
  FoldBatchIntoRows(a, b);
  Shape batch;
  try {
    batch = BroadcastShapes(Shape(a.batch), Shape(b.batch));
  } catch (const Error& e) {
    Fail(node, e.code(), fmt::format("batch dims do not broadcast: {}", e.what()));
  }
  const int64_t m = a.rows, n = b.cols;
  if (batch.NumElements() * m * n != OutputShape(node, 0).NumElements()) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("output shape {} does not match x1 {} @ x2 {}", OutputShape(node, 0).ToString(),
                     a_shape.ToString(), b_shape.ToString()));
  }
  if (HasInput(node, 2)) {
    RequireInputDtype(node, 2, {dtype});
    if (InputShape(node, 2).NumElements() != n) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("bias {} must have N = {} elements", InputShape(node, 2).ToString(), n));
    }
  }
  // high_performance / enable_hi_float_32_execution: bfloat16 operands with
  // float32 accumulation (bf16_products.h) for the three float dtypes.
  const bool reduced_precision = (dtype == DataType::kFloat || dtype == DataType::kFloat16 ||
                                  dtype == DataType::kBFloat16) &&
                                 WantsReducedPrecisionProducts(node);
  if (dtype != DataType::kFloat && !reduced_precision) {
    return DispatchDtype(node, dtype, DirectMatMulTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<DirectMatMulKernel<typename decltype(tag)::type>>(a, b, batch, HasInput(node, 2));
    });
  }
  if (dtype == DataType::kFloat && !reduced_precision && BuildsForShapesAtRun(node)) {
    if (std::unique_ptr<Kernel> kernel = MakeRunShapedMatMul(node, a, b, node.attrs().GetBool(transpose_a_attr),
                                                             node.attrs().GetBool(transpose_b_attr))) {
      return kernel;
    }
  }
  const size_t rank = batch.rank() + 2;
  std::vector<int64_t> dst_dims = batch.dims();
  dst_dims.push_back(m);
  dst_dims.push_back(n);
  std::optional<dnnl::memory::desc> bias;
  if (HasInput(node, 2)) {
    std::vector<int64_t> bias_dims(rank, 1);
    bias_dims.back() = n;
    bias = F32Desc(ToDnnlDims(bias_dims), ToDnnlDims(RowMajorStrides(bias_dims)));
  }
  const dnnl::memory::desc a_desc = OperandDesc(a, rank);
  const dnnl::memory::desc b_desc = OperandDesc(b, rank);
  const dnnl::memory::desc dst_desc = F32Desc(ToDnnlDims(dst_dims), ToDnnlDims(RowMajorStrides(dst_dims)));
  const bool constant_b = node.input(1)->constant() != nullptr;
  if (reduced_precision) {
    return BuildBf16Product(node, [&](dnnl::memory::data_type operand_type) -> std::unique_ptr<Kernel> {
      // The operands keep their layouts (the rounding is then a plain
      // conversion), except a constant x2, packed once as oneDNN prefers.
      const dnnl::memory::desc a_bf16 = OperandDesc(a, rank, operand_type);
      const dnnl::memory::desc b_bf16 =
          constant_b ? AnyLayout(b_desc, operand_type) : OperandDesc(b, rank, operand_type);
      dnnl::matmul::desc desc = bias ? dnnl::matmul::desc(a_bf16, b_bf16, *bias, dst_desc)
                                     : dnnl::matmul::desc(a_bf16, b_bf16, dst_desc);
      dnnl::matmul::primitive_desc pd(desc, DnnlAttributes(), CpuEngine());
      std::optional<ProductOperand> bias_operand;
      if (bias) bias_operand = ProductOperand{2, *bias};
      return std::make_unique<Bf16ProductKernel>(node, pd, dnnl::matmul(pd), ProductOperand{0, a_desc},
                                                 ProductOperand{1, b_desc}, bias_operand, dst_desc);
    });
  }
  return BuildDnnl(node, [&]() -> std::unique_ptr<Kernel> {
    // A constant x2 is packed once, so oneDNN may choose its layout.
    const dnnl::memory::desc b_build =
        constant_b ? F32Desc(b_desc.dims(), dnnl::memory::format_tag::any) : b_desc;
    dnnl::matmul::desc desc = bias ? dnnl::matmul::desc(a_desc, b_build, *bias, dst_desc)
                                   : dnnl::matmul::desc(a_desc, b_build, dst_desc);
    dnnl::matmul::primitive_desc pd(desc, DnnlAttributes(), CpuEngine());
    return std::make_unique<MatMulKernel>(node, pd, b_desc, bias);
  });
}

}  // namespace

void RegisterMatMulKernels(KernelRegistry& registry) {
  RegisterKernel(
      registry, "MatMulV2", MatMulDtypes(),
      [](const Node& node) { return MakeMatMul(node, "transpose_x1", "transpose_x2"); }, CubeImplModes());
  RegisterKernel(
      registry, "BatchMatMulV2", MatMulDtypes(), [](const Node& node) { return MakeMatMul(node, "adj_x1", "adj_x2"); },
      CubeImplModes());
}

}  // namespace ge::device::cpu

#include "device/cpu/kernels/packed_rows_product.h"

#include <algorithm>
#include <utility>

#include <fmt/core.h>

#include "device/cpu/kernels/kernel_utils.h"
#include "device/prepacked_weights.h"

namespace ge::device::cpu {

// The primitive for one row count. Its scratchpad is oneDNN's own (library
// mode: one per thread, grown once and reused), since the kernel's workspace
// is asked for before the run's row count is known.
struct PackedRowsProduct::AtRows {
  int64_t rows;
  dnnl::matmul primitive;
  dnnl::memory::desc x, bias, y;
  PackedConstant weight;
};

PackedRowsProduct::PackedRowsProduct(Tensor weight, int64_t k, int64_t n, bool transposed, bool has_bias)
    : weight_(std::move(weight)),
      k_(k),
      n_(n),
      has_bias_(has_bias),
      user_weight_(F32Desc({k, n}, transposed ? dnnl::memory::dims{1, k} : dnnl::memory::dims{n, 1})) {
  // A weight its model keeps only packed (runtime/compile/packed_weights.h)
  // is offered while the kernel is built; its bytes are in that layout.
  if (const PrepackedWeights* offered = OfferedPrepackedWeights()) {
    if (const std::string* stored = offered->StoredLayout(weight_.data())) user_weight_ = DescOfLayout(*stored);
  }
}

std::shared_ptr<const PackedRowsProduct::AtRows> PackedRowsProduct::PrimitiveFor(int64_t rows) const {
  std::lock_guard lock(mutex_);
  for (const auto& made : by_rows_) {
    if (made->rows == rows) return made;
  }
  auto made = std::make_shared<AtRows>();
  made->rows = rows;
  made->x = F32Desc({rows, k_}, dnnl::memory::dims{k_, 1});
  made->y = F32Desc({rows, n_}, dnnl::memory::dims{n_, 1});
  if (has_bias_) made->bias = F32Desc({1, n_}, dnnl::memory::dims{n_, 1});
  const dnnl::memory::desc any_weight = F32Desc({k_, n_}, dnnl::memory::format_tag::any);
  const dnnl::matmul::desc desc = has_bias_ ? dnnl::matmul::desc(made->x, any_weight, made->bias, made->y)
                                            : dnnl::matmul::desc(made->x, any_weight, made->y);
  const dnnl::matmul::primitive_desc pd(desc, CpuEngine());
  made->primitive = dnnl::matmul(pd);
  // The row counts share one packed copy while their primitives want the
  // same layout (as oneDNN's float32 kernels do); another layout packs anew.
  // A weight already in the wanted layout is read where it is.
  const auto same_layout = std::find_if(by_rows_.begin(), by_rows_.end(), [&](const auto& other) {
    return other->weight.memory.get_desc() == pd.weights_desc();
  });
  if (same_layout != by_rows_.end()) {
    made->weight = (*same_layout)->weight;
  } else if (pd.weights_desc() == user_weight_) {
    made->weight = PackedConstant{WrapBuffer(user_weight_, weight_.data()), nullptr};
  } else {
    made->weight = PackConstant(weight_, user_weight_, pd.weights_desc());
  }
  if (by_rows_.size() == kKeptRowCounts) by_rows_.erase(by_rows_.begin());
  by_rows_.push_back(made);
  return made;
}

void PackedRowsProduct::Run(const std::string& node_label, const float* x, int64_t rows, const float* bias,
                            float* y) const {
  if (rows == 0) return;
  std::shared_ptr<const AtRows> at;
  try {
    at = PrimitiveFor(rows);
  } catch (const dnnl::error& e) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: oneDNN refused the product at {} rows: {}", node_label, rows, e.what()));
  }
  std::unordered_map<int, dnnl::memory> args;
  args.emplace(DNNL_ARG_SRC, WrapBuffer(at->x, x));
  args.emplace(DNNL_ARG_WEIGHTS, at->weight.memory);
  if (has_bias_) args.emplace(DNNL_ARG_BIAS, WrapBuffer(at->bias, bias));
  args.emplace(DNNL_ARG_DST, WrapBuffer(at->y, y));
  ExecuteDnnl(node_label, at->primitive, std::move(args), dnnl::memory::desc(), nullptr);
}

std::vector<Kernel::PackedInput> PackedRowsProduct::PackedInputs() const {
  std::lock_guard lock(mutex_);
  // A weight read where it is was not re-laid out.
  if (by_rows_.empty() || by_rows_.back()->weight.memory.get_data_handle() == weight_.data()) return {};
  return {DescribePacked(1, by_rows_.back()->weight.memory)};
}

namespace {

bool Flag(const Node& node, const std::string& name) { return node.attrs().Has(name) && node.attrs().GetBool(name); }

// Whether the kernel of `use` reads its weight only through PackConstant
// (matmul.cc): a float32 product of an untransposed x1, which packs it node by
// node (PackedRowsProduct, once a model packs its weights) and in the plans
// (MatMulKernel); not the bfloat16 products, which convert the weight
// themselves, nor the other dtypes' direct loop.
bool ReadsOnlyPacked(const Use& use, std::optional<bool>& transposed) {
  const Node& node = *use.node;
  const bool v2 = node.op_type() == "MatMulV2";
  if ((!v2 && node.op_type() != "BatchMatMulV2") || use.input_index != 1 || HasInput(node, 3)) return false;
  if (node.attrs().Has("offset_x") && node.attrs().GetInt("offset_x") != 0) return false;
  if (Flag(node, v2 ? "transpose_x1" : "adj_x1") || node.input(0) == nullptr) return false;
  if (node.input(0)->dtype() != DataType::kFloat || WantsReducedPrecisionProducts(node)) return false;
  const bool this_one = Flag(node, v2 ? "transpose_x2" : "adj_x2");
  if (transposed && *transposed != this_one) return false;
  transposed = this_one;
  return true;
}

}  // namespace

std::optional<Device::PackedWeight> PackProductWeight(const Value& weight) {
  const Tensor* tensor = weight.constant();
  if (tensor == nullptr || tensor->dtype() != DataType::kFloat || tensor->shape().rank() != 2 ||
      tensor->num_elements() == 0 || weight.uses().empty()) {
    return std::nullopt;
  }
  std::optional<bool> transposed;
  for (const Use& use : weight.uses()) {
    if (!ReadsOnlyPacked(use, transposed)) return std::nullopt;
  }
  const int64_t k = tensor->shape().dim(*transposed ? 1 : 0), n = tensor->shape().dim(*transposed ? 0 : 1);
  // The layout oneDNN's products want for this weight; the same at every
  // row count for its float32 kernels (a product at another layout reorders
  // from this one).
  constexpr int64_t kRows = 16;
  const dnnl::memory::desc x = F32Desc({kRows, k}, dnnl::memory::dims{k, 1});
  const dnnl::memory::desc y = F32Desc({kRows, n}, dnnl::memory::dims{n, 1});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x, F32Desc({k, n}, dnnl::memory::format_tag::any), y),
                                        CpuEngine());
  const dnnl::memory::desc user = F32Desc({k, n}, *transposed ? dnnl::memory::dims{1, k} : dnnl::memory::dims{n, 1});
  // The packed bytes stand for the weight's dtype and shape: never fewer.
  if (pd.weights_desc().get_size() < static_cast<size_t>(tensor->nbytes())) return std::nullopt;
  PackedConstant packed = PackConstant(*tensor, user, pd.weights_desc());
  if (!packed.storage) return std::nullopt;  // offered in place: kept packed already
  const void* data = packed.storage->data();
  return Device::PackedWeight{Tensor::View(DataType::kFloat, tensor->shape(), data, std::move(packed.storage)),
                              LayoutName(pd.weights_desc()), pd.weights_desc().get_size()};
}

}  // namespace ge::device::cpu

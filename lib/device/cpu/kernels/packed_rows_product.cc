#include "device/cpu/kernels/packed_rows_product.h"

#include <algorithm>
#include <utility>

#include <fmt/core.h>

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
      user_weight_(F32Desc({k, n}, transposed ? dnnl::memory::dims{1, k} : dnnl::memory::dims{n, 1})) {}

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
  const auto same_layout = std::find_if(by_rows_.begin(), by_rows_.end(), [&](const auto& other) {
    return other->weight.memory.get_desc() == pd.weights_desc();
  });
  made->weight = same_layout != by_rows_.end() ? (*same_layout)->weight
                                               : PackConstant(weight_, user_weight_, pd.weights_desc());
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
  if (by_rows_.empty()) return {};
  return {DescribePacked(1, by_rows_.back()->weight.memory)};
}

}  // namespace ge::device::cpu

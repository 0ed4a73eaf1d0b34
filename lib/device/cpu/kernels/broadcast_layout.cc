#include "device/cpu/kernels/broadcast_layout.h"

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::device::cpu {

BroadcastLayout::BroadcastLayout(const Shape& out, std::span<const Shape* const> inputs) {
  const size_t rank = out.rank();
  // broadcast[k][d]: input k is broadcast along output dim d.
  std::vector<std::vector<bool>> broadcast(inputs.size(), std::vector<bool>(rank, false));
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Shape& in = *inputs[k];
    if (in.rank() > rank) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("shape {} does not broadcast to {}", in.ToString(), out.ToString()));
    }
    const size_t lead = rank - in.rank();
    for (size_t d = 0; d < rank; ++d) {
      int64_t in_dim = d < lead ? 1 : in.dim(d - lead);
      if (in_dim != out.dim(d) && in_dim != 1) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("shape {} does not broadcast to {}", in.ToString(), out.ToString()));
      }
      broadcast[k][d] = in_dim != out.dim(d);
    }
  }

  // Merge dims; `pattern` holds the broadcast flags of the current merged dim.
  std::vector<std::vector<bool>> merged_flags(inputs.size());
  for (size_t d = 0; d < rank; ++d) {
    if (out.dim(d) == 1) continue;
    bool same_pattern = !dims_.empty();
    for (size_t k = 0; k < inputs.size() && same_pattern; ++k) {
      same_pattern = merged_flags[k].back() == broadcast[k][d];
    }
    if (same_pattern) {
      dims_.back() *= out.dim(d);
    } else {
      dims_.push_back(out.dim(d));
      for (size_t k = 0; k < inputs.size(); ++k) merged_flags[k].push_back(broadcast[k][d]);
    }
  }
  if (dims_.empty()) {
    dims_.push_back(1);
    for (auto& flags : merged_flags) flags.push_back(true);
  }

  strides_.assign(inputs.size(), std::vector<int64_t>(dims_.size(), 0));
  for (size_t k = 0; k < inputs.size(); ++k) {
    int64_t stride = 1;
    for (size_t j = dims_.size(); j-- > 0;) {
      if (merged_flags[k][j]) continue;
      strides_[k][j] = stride;
      stride *= dims_[j];
    }
  }
  for (size_t j = 0; j + 1 < dims_.size(); ++j) rows_ *= dims_[j];
}

int64_t BroadcastLayout::RowOffset(size_t k, int64_t row) const {
  int64_t offset = 0;
  const std::vector<int64_t>& strides = strides_[k];
  for (size_t j = dims_.size() - 1; j-- > 0;) {
    int64_t index = row % dims_[j];
    row /= dims_[j];
    offset += index * strides[j];
  }
  return offset;
}

}  // namespace ge::device::cpu

// The kernel registry: which kernels a device offers, keyed by op type and the
// dtype of the node's first input.
#include <algorithm>

#include <fmt/core.h>

#include "device/kernel.h"
#include "ge/error.h"

namespace ge::device {

namespace {

bool Accepts(const KernelDef& def, DataType dtype) {
  return std::find(def.dtypes.begin(), def.dtypes.end(), dtype) != def.dtypes.end();
}

}  // namespace

void KernelRegistry::Register(KernelDef def) {
  if (!def.factory) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("kernel for op '{}' registered without a factory", def.op_type));
  }
  // Two kernels for the same (op type, dtype) would make the choice depend on
  // registration order, so the second one is refused.
  for (DataType dtype : def.dtypes) {
    if (Find(def.op_type, dtype) != nullptr) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("a kernel for op '{}' with dtype {} is already registered", def.op_type,
                              DataTypeName(dtype)));
    }
  }
  std::string op_type = def.op_type;
  defs_.emplace(std::move(op_type), std::move(def));
}

const KernelDef* KernelRegistry::Find(const std::string& op_type, DataType dtype) const {
  auto [begin, end] = defs_.equal_range(op_type);
  for (auto it = begin; it != end; ++it) {
    if (Accepts(it->second, dtype)) return &it->second;
  }
  return nullptr;
}

std::vector<const KernelDef*> KernelRegistry::All() const {
  std::vector<const KernelDef*> all;
  all.reserve(defs_.size());
  for (const auto& [op_type, def] : defs_) all.push_back(&def);
  return all;
}

bool KernelRegistry::Supports(const std::string& op_type) const { return defs_.count(op_type) != 0; }

}  // namespace ge::device

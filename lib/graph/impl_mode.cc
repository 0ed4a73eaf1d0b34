#include "graph/impl_mode.h"

namespace ge {

const std::vector<std::string>& KnownImplModes() {
  static const std::vector<std::string> modes = {std::string(kHighPrecision),
                                                 std::string(kHighPerformance),
                                                 "support_out_of_bound_index",
                                                 "keep_fp16",
                                                 "super_performance",
                                                 std::string(kFloat32Execution),
                                                 std::string(kHiFloat32Execution)};
  return modes;
}

const std::vector<std::string>& ImplModeSelections() {
  static const std::vector<std::string> selections = {std::string(kHighPrecision), std::string(kHighPerformance),
                                                      "high_precision_for_all", "high_performance_for_all"};
  return selections;
}

std::optional<std::string_view> AppliedImplMode(const Node& node) {
  const AttrValue* mode = node.attrs().Find(kImplModeAttr);
  const std::string* text = mode != nullptr ? std::get_if<std::string>(mode) : nullptr;
  if (text == nullptr) return std::nullopt;
  return std::string_view(*text);
}

}  // namespace ge

#include "tensor_values.h"

#include <algorithm>
#include <type_traits>

#include <fmt/core.h>

namespace ge::cli {

std::string FormatLeadingValues(const Tensor& tensor, size_t count) {
  const size_t total = tensor.num_elements() < 0 ? 0 : static_cast<size_t>(tensor.num_elements());
  const size_t shown = std::min(count, total);
  std::string text;
  const bool known = VisitPlainType(tensor.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* data = tensor.data_as<T>();
    for (size_t i = 0; i < shown; ++i) {
      if (i > 0) text += ", ";
      if constexpr (std::is_floating_point_v<T>) {
        text += fmt::format("{:.6g}", data[i]);
      } else {
        text += fmt::format("{}", data[i]);
      }
    }
  });
  if (!known) return fmt::format("({} values not shown)", DataTypeName(tensor.dtype()));
  if (shown < total) text += ", ...";
  return text;
}

}  // namespace ge::cli

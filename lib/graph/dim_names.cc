#include "graph/dim_names.h"

namespace ge {

std::vector<std::string> DimNamesOf(const Value& input) {
  const Node* data = input.producer();
  if (data == nullptr || !data->attrs().Has(kDimNamesAttr)) return {};
  const std::vector<std::string>& names = data->attrs().GetStrings(kDimNamesAttr);
  if (input.shape().unknown_rank() || names.size() != input.shape().rank()) return {};
  return names;
}

}  // namespace ge

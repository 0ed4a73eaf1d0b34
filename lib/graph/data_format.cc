#include "graph/data_format.h"

#include <string>
#include <variant>

namespace ge {

bool ChannelsLast(const Node& node) {
  const AttrValue* format = node.attrs().Find("data_format");
  return format != nullptr && std::holds_alternative<std::string>(*format) && std::get<std::string>(*format) == "NHWC";
}

}  // namespace ge

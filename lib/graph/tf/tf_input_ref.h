// A NodeDef input as text: "node", "node:1", or "^node" for a control input.
#pragma once

#include <string>

namespace ge::tf_import {

struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
};

inline InputRef ParseInput(const std::string& text) {
  InputRef ref;
  std::string name = text;
  if (!name.empty() && name[0] == '^') {
    ref.control = true;
    name.erase(0, 1);
  }
  const size_t colon = name.rfind(':');
  if (colon != std::string::npos && colon + 1 < name.size() &&
      name.find_first_not_of("0123456789", colon + 1) == std::string::npos && name.size() - colon <= 6) {
    ref.index = std::stoi(name.substr(colon + 1));
    name.resize(colon);
  }
  ref.node = name;
  return ref;
}

}  // namespace ge::tf_import

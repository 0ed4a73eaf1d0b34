// Activations whose ONNX attributes are floats that map one to one onto the
// ge op's attributes (with ONNX's defaults): LeakyRelu, Elu, Selu, Celu,
// ThresholdedRelu, HardSigmoid, Shrink.
#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

struct AttrMapping {
  const char* onnx_name;
  const char* ge_name;
  float onnx_default;
};

struct ActivationAttrs {
  std::string_view onnx_op;
  std::array<AttrMapping, 2> attrs;
  size_t count;
};

constexpr std::array kActivations = {
    ActivationAttrs{"Celu", {{{"alpha", "alpha", 1.0f}}}, 1},
    ActivationAttrs{"Elu", {{{"alpha", "alpha", 1.0f}}}, 1},
    ActivationAttrs{"HardSigmoid", {{{"alpha", "alpha", 0.2f}, {"beta", "beta", 0.5f}}}, 2},
    ActivationAttrs{"LeakyRelu", {{{"alpha", "negative_slope", 0.01f}}}, 1},
    ActivationAttrs{"Selu",
                    {{{"alpha", "alpha", 1.67326319217681884765625f}, {"gamma", "gamma", 1.05070102214813232421875f}}},
                    2},
    ActivationAttrs{"Shrink", {{{"lambd", "lambd", 0.5f}, {"bias", "bias", 0.0f}}}, 2},
    ActivationAttrs{"ThresholdedRelu", {{{"alpha", "alpha", 1.0f}}}, 1},
};

}  // namespace

void TranslateActivation(NodeTranslation& node) {
  const std::string& op = node.proto().op_type();
  const auto* it = std::find_if(kActivations.begin(), kActivations.end(),
                                [&](const ActivationAttrs& a) { return a.onnx_op == op; });
  if (it == kActivations.end()) node.Fail(ErrorCode::kInternal, "not an activation with float attributes");
  Node* main = node.AddMainNode({node.RequiredInput(0)});
  for (size_t i = 0; i < it->count; ++i) {
    const AttrMapping& attr = it->attrs[i];
    main->attrs().Set(attr.ge_name, node.attrs().Float(attr.onnx_name, attr.onnx_default));
  }
  node.BindOutputs(main);
}

}  // namespace ge::onnx_import

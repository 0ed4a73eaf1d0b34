#include "device/cpu/kernels/recurrent_activation.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

struct ActivationInfo {
  const char* name;  // lower case
  RecurrentActivation::Kind kind;
  std::optional<double> alpha;  // the default, when the function has the parameter
  std::optional<double> beta;
};

using Kind = RecurrentActivation::Kind;
constexpr ActivationInfo kActivations[] = {
    {"relu", Kind::kRelu, {}, {}},
    {"tanh", Kind::kTanh, {}, {}},
    {"sigmoid", Kind::kSigmoid, {}, {}},
    {"affine", Kind::kAffine, 1.0, 0.0},
    {"leakyrelu", Kind::kLeakyRelu, 0.01, {}},
    {"thresholdedrelu", Kind::kThresholdedRelu, 1.0, {}},
    {"scaledtanh", Kind::kScaledTanh, 1.0, 1.0},
    {"hardsigmoid", Kind::kHardSigmoid, 0.2, 0.5},
    {"elu", Kind::kElu, 1.0, {}},
    {"softsign", Kind::kSoftsign, {}, {}},
    {"softplus", Kind::kSoftplus, {}, {}},
};

const ActivationInfo& FindActivation(const Node& node, const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const ActivationInfo& info : kActivations) {
    if (lower == info.name) return info;
  }
  Fail(node, ErrorCode::kUnsupported,
       fmt::format("activation '{}' is not supported; valid: Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
                   "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus",
                   name));
}

}  // namespace

std::vector<RecurrentActivation> ReadRecurrentActivations(const Node& node, const std::vector<std::string>& defaults,
                                                          int64_t directions) {
  std::vector<std::string> names = node.attrs().GetStrings("activations");
  if (names.empty()) {
    for (int64_t d = 0; d < directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  const size_t expected = defaults.size() * static_cast<size_t>(directions);
  if (names.size() != expected) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'activations' has {} functions; {} per direction x {} directions are needed",
                     names.size(), defaults.size(), directions));
  }
  const std::vector<float>& alphas = node.attrs().GetFloats("activation_alpha");
  const std::vector<float>& betas = node.attrs().GetFloats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  std::vector<RecurrentActivation> result;
  for (const std::string& name : names) {
    const ActivationInfo& info = FindActivation(node, name);
    RecurrentActivation activation{info.kind, 0.0, 0.0};
    if (info.alpha) activation.alpha = next_alpha < alphas.size() ? alphas[next_alpha++] : *info.alpha;
    if (info.beta) activation.beta = next_beta < betas.size() ? betas[next_beta++] : *info.beta;
    result.push_back(activation);
  }
  return result;
}

}  // namespace ge::device::cpu

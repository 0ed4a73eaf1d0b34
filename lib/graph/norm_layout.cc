#include "graph/norm_layout.h"

#include <array>
#include <span>
#include <string>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge {
namespace {

[[noreturn]] void Fail(const Node& node, const std::string& message, ErrorCode code = ErrorCode::kInvalidArgument) {
  throw Error(code, fmt::format("{}: {}", node.Describe(), message));
}

// The attribute if the node has it. An absent one takes the schema's default,
// which passes; inference may run before NormalizeAttrs adds it.
template <typename T>
const T* AttrIfSet(const Node& node, const std::string& name) {
  const AttrValue* value = node.attrs().Find(name);
  if (value == nullptr) return nullptr;
  if (const T* typed = std::get_if<T>(value)) return typed;
  Fail(node, fmt::format("attribute '{}' must be {} but is {}", name, AttrTypeName(TypeOf(AttrValue(T{}))),
                         AttrTypeName(TypeOf(*value))));
}

constexpr std::array<const char*, 5> kBatchNormInputs = {"x", "scale", "offset", "mean", "variance"};
constexpr std::array<const char*, 3> kInstanceNormInputs = {"x", "gamma", "beta"};

}  // namespace

int64_t CheckChannelNorm(const Node& node, NormUnknowns unknowns) {
  const bool batch_norm = node.op_type() == "BatchNorm";
  const std::span<const char* const> names = batch_norm ? std::span<const char* const>(kBatchNormInputs)
                                                        : std::span<const char* const>(kInstanceNormInputs);
  if (const std::string* format = AttrIfSet<std::string>(node, "data_format"); format && *format != "NCHW") {
    Fail(node, fmt::format("data_format '{}' is not supported (valid: \"NCHW\")", *format));
  }
  if (const bool* training = batch_norm ? AttrIfSet<bool>(node, "is_training") : nullptr; training && *training) {
    Fail(node, "is_training=true is not supported: BatchNorm is inference-only (valid: false)");
  }
  for (size_t i = 0; i < names.size(); ++i) {
    const Value* input = node.input(i);
    if (input == nullptr) Fail(node, fmt::format("input {} '{}' is missing", i, names[i]), ErrorCode::kInvalidModel);
    if (unknowns == NormUnknowns::kFail && (!input->shape().IsStatic() || input->dtype() == DataType::kUndefined)) {
      Fail(node,
           fmt::format("input {} '{}' is {} {}; the kernel needs its dtype and dims known", i, names[i],
                       DataTypeName(input->dtype()), input->shape().ToString()),
           ErrorCode::kInvalidModel);
    }
  }
  const Value& x = *node.input(0);
  const Shape& xs = x.shape();
  const size_t min_rank = batch_norm ? 2 : 3;
  if (!xs.unknown_rank() && xs.rank() < min_rank) {
    Fail(node, fmt::format("x must have rank >= {}, got {}", min_rank, xs.ToString()));
  }
  int64_t channels = xs.unknown_rank() ? Shape::kUnknownDim : xs.dim(1);
  for (size_t i = 1; i < names.size(); ++i) {
    const Value& param = *node.input(i);
    const Shape& ps = param.shape();
    const int64_t length = !ps.unknown_rank() && ps.rank() == 1 ? ps.dim(0) : Shape::kUnknownDim;
    const bool fits = ps.unknown_rank() || (ps.rank() == 1 && (length == Shape::kUnknownDim ||
                                                               channels == Shape::kUnknownDim || length == channels));
    if (!fits) {
      Fail(node, fmt::format("input {} '{}' has shape {}; it must be [{}], one value per channel of x {}", i, names[i],
                             ps.ToString(), channels == Shape::kUnknownDim ? "C" : std::to_string(channels),
                             xs.ToString()));
    }
    if (channels == Shape::kUnknownDim) channels = length;
    // A dtype not inferred yet passes (kFail refused it above).
    if (param.dtype() != x.dtype() && param.dtype() != DataType::kUndefined && x.dtype() != DataType::kUndefined) {
      Fail(node, fmt::format("input {} '{}' has dtype {} but x has dtype {}; they must match", i, names[i],
                             DataTypeName(param.dtype()), DataTypeName(x.dtype())));
    }
  }
  return channels;
}

}  // namespace ge

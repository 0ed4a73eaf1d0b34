#include "case_exclusion.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace ge::conformance {
namespace {

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// Training ops of ONNX (ai.onnx.preview.training, listed here too in case a
// model puts them in the default domain).
constexpr std::array<std::string_view, 4> kTrainingOps = {"Adagrad", "Adam", "Gradient", "Momentum"};

// Ops on strings; test models do not always declare the types of intermediate
// values, so the op decides.
constexpr std::array<std::string_view, 2> kStringOps = {"StringNormalizer", "RegexFullMatch"};

template <size_t N>
bool Contains(const std::array<std::string_view, N>& list, const std::string& op) {
  for (std::string_view item : list) {
    if (item == op) return true;
  }
  return false;
}

std::optional<std::string> TypeExclusion(const onnx::TypeProto& type, const std::string& value) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      if (type.tensor_type().elem_type() == onnx::TensorProto::STRING) {
        return fmt::format("string tensor '{}'", value);
      }
      return std::nullopt;
    case onnx::TypeProto::kSequenceType:
    case onnx::TypeProto::kOptionalType: {
      // ge runs sequences and optionals; what they hold decides.
      const bool sequence = type.has_sequence_type();
      const auto& element = sequence ? type.sequence_type().elem_type() : type.optional_type().elem_type();
      auto reason = TypeExclusion(element, value);
      if (reason) *reason += sequence ? " (in a sequence)" : " (in an optional)";
      return reason;
    }
    case onnx::TypeProto::kMapType: return fmt::format("map type of '{}'", value);
    case onnx::TypeProto::kSparseTensorType: return fmt::format("sparse tensor type of '{}'", value);
    default: return std::nullopt;  // no type given: the op list decides
  }
}

std::optional<std::string> GraphExclusion(const onnx::GraphProto& graph) {
  for (const auto* values : {&graph.input(), &graph.output(), &graph.value_info()}) {
    for (const auto& info : *values) {
      if (auto reason = TypeExclusion(info.type(), info.name())) return reason;
    }
  }
  for (const auto& initializer : graph.initializer()) {
    if (initializer.data_type() == onnx::TensorProto::STRING) {
      return fmt::format("string tensor '{}'", initializer.name());
    }
  }
  for (const auto& node : graph.node()) {
    if (!IsDefaultDomain(node.domain())) return fmt::format("op {} of domain '{}'", node.op_type(), node.domain());
    if (Contains(kTrainingOps, node.op_type())) return fmt::format("training op {}", node.op_type());
    if (Contains(kStringOps, node.op_type())) return fmt::format("op {} works on strings", node.op_type());
    for (const auto& attribute : node.attribute()) {
      if (attribute.has_g()) {
        if (auto reason = GraphExclusion(attribute.g())) return reason;
      }
      for (const auto& subgraph : attribute.graphs()) {
        if (auto reason = GraphExclusion(subgraph)) return reason;
      }
      if (attribute.has_t() && attribute.t().data_type() == onnx::TensorProto::STRING) {
        return fmt::format("string tensor attribute of {}", node.op_type());
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ExclusionReason(const onnx::ModelProto& model) {
  for (const auto& opset : model.opset_import()) {
    if (!IsDefaultDomain(opset.domain())) return fmt::format("imports domain '{}'", opset.domain());
  }
  return GraphExclusion(model.graph());
}

}  // namespace ge::conformance

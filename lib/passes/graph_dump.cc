// The text form of a graph, e.g.
//
//   graph tiny_cnn
//   inputs: %x:float32[1,3,8,8]
//   %x:float32[1,3,8,8] = Data[index=0]()  # x
//   %w:float32[4,3,3,3] = Const[value=<float32[4,3,3,3]>]()  # w
//   %conv1:float32[1,4,8,8] = Conv2D[pads=[1,1,1,1], strides=[1,1,1,1]](%x, %w, none)  # conv1
//   outputs: %conv1:float32[1,4,8,8]
//
// Nodes come in topological order; constants are summarized, never dumped.
#include <sstream>
#include <variant>

#include <fmt/format.h>

#include "passes/pass.h"

namespace ge {
namespace {

std::string TypedValue(const Value& value) {
  return fmt::format("%{}:{}{}", value.name(), DataTypeName(value.dtype()), value.shape().ToString());
}

std::string TensorSummary(const Tensor& tensor) {
  if (tensor.empty()) return "<empty>";
  return fmt::format("<{}{}>", DataTypeName(tensor.dtype()), tensor.shape().ToString());
}

std::string FormatAttr(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return fmt::format("\"{}\"", v);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          std::vector<std::string> quoted;
          for (const std::string& s : v) quoted.push_back(fmt::format("\"{}\"", s));
          return fmt::format("[{}]", fmt::join(quoted, ","));
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<float>>) {
          return fmt::format("[{}]", fmt::join(v, ","));
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return TensorSummary(v);
        } else if constexpr (std::is_same_v<T, DataType>) {
          return std::string(DataTypeName(v));
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const Graph>>) {
          return v ? fmt::format("<graph {}>", v->name()) : "<no graph>";
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

std::string FormatNode(const Node& node) {
  std::vector<std::string> outputs;
  for (const Value* output : node.outputs()) outputs.push_back(TypedValue(*output));
  std::vector<std::string> attrs;
  for (const auto& [name, value] : node.attrs().entries()) attrs.push_back(name + "=" + FormatAttr(value));
  std::vector<std::string> inputs;
  for (const Value* input : node.inputs()) inputs.push_back(input != nullptr ? "%" + input->name() : "none");
  for (const Node* control : node.control_inputs()) inputs.push_back("^" + control->name());
  std::string attr_list = attrs.empty() ? "" : fmt::format("[{}]", fmt::join(attrs, ", "));
  return fmt::format("{} = {}{}({})  # {}", fmt::join(outputs, ", "), node.op_type(), attr_list,
                     fmt::join(inputs, ", "), node.name());
}

std::string ValueList(const std::vector<Value*>& values) {
  std::vector<std::string> names;
  for (const Value* value : values) names.push_back(value != nullptr ? TypedValue(*value) : "none");
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string DumpGraph(const Graph& graph) {
  std::ostringstream out;
  out << "graph " << graph.name() << "\n";
  out << "inputs: " << ValueList(graph.inputs()) << "\n";
  std::vector<const Graph*> subgraphs;
  for (const Node* node : graph.TopologicalOrder()) {
    out << FormatNode(*node) << "\n";
    for (const auto& [name, value] : node->attrs().entries()) {
      if (const auto* subgraph = std::get_if<std::shared_ptr<const Graph>>(&value); subgraph && *subgraph) {
        subgraphs.push_back(subgraph->get());
      }
    }
  }
  out << "outputs: " << ValueList(graph.outputs()) << "\n";
  // Subgraphs follow their graph, each indented one level more.
  for (const Graph* subgraph : subgraphs) {
    std::istringstream lines(DumpGraph(*subgraph));
    for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
  }
  return out.str();
}

}  // namespace ge

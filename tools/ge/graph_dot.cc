#include "graph_dot.h"

#include <map>
#include <sstream>

#include <fmt/core.h>

namespace ge::cli {
namespace {

// DOT string literal contents.
std::string Escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string EdgeLabel(const Value& value) {
  return fmt::format("{}{}", DataTypeName(value.dtype()), value.shape().ToString());
}

}  // namespace

std::string StreamColour(int stream) {
  static const char* const kPalette[] = {"#cfe2f3", "#d9ead3", "#fce5cd", "#ead1dc", "#fff2cc", "#d0e0e3",
                                         "#f4cccc", "#d9d2e9", "#c9daf8", "#b6d7a8", "#f9cb9c", "#a2c4c9"};
  constexpr int kColours = static_cast<int>(std::size(kPalette));
  return kPalette[((stream % kColours) + kColours) % kColours];
}

std::string GraphToDot(const Graph& graph, const PlanSummary& plan) {
  std::map<std::string, int> stream_of;
  for (const PlannedStep& step : plan.steps) stream_of[step.node] = step.stream;

  std::ostringstream dot;
  dot << "digraph \"" << Escape(graph.name()) << "\" {\n"
      << "  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n";
  std::map<const Node*, int> id;
  for (const Node* node : graph.TopologicalOrder()) {
    if (node->op_type() == "Const") continue;
    const int n = static_cast<int>(id.size());
    id[node] = n;
    if (node->op_type() == "Data") {
      dot << fmt::format("  n{} [shape=ellipse, label=\"{}\"];\n", n, Escape(node->output(0)->name()));
      continue;
    }
    auto stream = stream_of.find(node->name());
    const int s = stream == stream_of.end() ? 0 : stream->second;
    dot << fmt::format("  n{} [shape=box, style=\"rounded,filled\", fillcolor=\"{}\", label=\"{}\\n{}\", "
                       "tooltip=\"stream {}\"];\n",
                       n, StreamColour(s), Escape(node->op_type()), Escape(node->name()), s);
  }
  for (const auto& [node, n] : id) {
    for (const Value* input : node->inputs()) {
      if (input == nullptr) continue;
      auto producer = id.find(input->producer());
      if (producer == id.end()) continue;  // a constant
      dot << fmt::format("  n{} -> n{} [label=\"{}\"];\n", producer->second, n, Escape(EdgeLabel(*input)));
    }
  }
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const Value* output = graph.outputs()[i];
    dot << fmt::format("  out{} [shape=ellipse, style=bold, label=\"{}\"];\n", i, Escape(output->name()));
    auto producer = id.find(output->producer());
    if (producer != id.end()) {
      dot << fmt::format("  n{} -> out{} [label=\"{}\"];\n", producer->second, i, Escape(EdgeLabel(*output)));
    }
  }
  dot << "}\n";
  return dot.str();
}

}  // namespace ge::cli

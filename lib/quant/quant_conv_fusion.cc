#include "quant/quant_conv_fusion.h"

#include <string>
#include <vector>

#include "passes/graph_rewrite.h"
#include "quant/quant_graph_edit.h"

namespace ge::quant {
namespace {

enum ConvInput { kX = 0, kFilter, kBias, kOffsetW };

template <typename T>
T Attr(const Node& node, const std::string& name) {
  const AttrValue* value = passes::AttrOrDefault(node, name);
  return value != nullptr && std::holds_alternative<T>(*value) ? std::get<T>(*value) : T{};
}

// The uint64 scale words QuantConv2D takes: constant, no shift N, and (for a
// requant) one offset for all channels, as its oneDNN kernel needs.
bool FoldableScale(const Value* words, bool requant) {
  const Tensor* tensor = words != nullptr ? words->constant() : nullptr;
  if (tensor == nullptr || tensor->dtype() != DataType::kUInt64) return false;
  for (int64_t c = 0; c < tensor->num_elements(); ++c) {
    const uint64_t word = tensor->data_as<uint64_t>()[c];
    if (((word >> 32) & 0xff) != 0) return false;
    if (!requant && (word >> 40) != 0) return false;
    if ((word >> 40) != (tensor->data_as<uint64_t>()[0] >> 40)) return false;
  }
  return true;
}

// The AscendDequant (float32) or AscendRequant that alone reads conv's sums, or nullptr.
Node* FoldableQuantOutput(const Graph& graph, const Node& conv) {
  const Value* sums = conv.output(0);
  if (sums->uses().size() != 1 || passes::IsGraphOutput(graph, sums)) return nullptr;
  Node* reader = sums->uses()[0].node;
  const bool requant = reader->op_type() == "AscendRequant";
  if ((!requant && reader->op_type() != "AscendDequant") || Tagged(*reader, kSkipFusionAttr)) return nullptr;
  // The scales run along the convolution's output channels: axis 1, or the
  // last axis of a channels-last (TensorFlow NHWC) convolution.
  const int64_t axis = Attr<int64_t>(*reader, "channel_axis");
  const bool channels_last = Attr<std::string>(conv, "data_format") == "NHWC";
  if (channels_last ? axis != -1 && axis != 3 : axis != 1) return nullptr;
  const bool float_output = Attr<int64_t>(*reader, "dtype") == static_cast<int64_t>(DataType::kFloat);
  if (!requant && (Attr<bool>(*reader, "sqrt_mode") || !float_output)) return nullptr;
  return FoldableScale(reader->input(1), requant) ? reader : nullptr;
}

bool FoldableConv(const Node& conv) {
  if (conv.op_type() != "Conv2D" || conv.num_outputs() != 1 || !conv.control_inputs().empty() ||
      Tagged(conv, kSkipFusionAttr)) {
    return false;
  }
  const Value* x = conv.input(kX);
  const Value* filter = conv.input(kFilter);
  return x != nullptr && x->dtype() == DataType::kInt8 && filter != nullptr && filter->constant() != nullptr &&
         conv.input(kOffsetW) == nullptr && conv.output(0)->dtype() == DataType::kInt32;
}

void Fuse(Graph& graph, Node* conv, Node* reader) {
  const std::string name = conv->name();
  Value* x = conv->input(kX);
  Value* filter = conv->input(kFilter);
  Value* bias = conv->input(kBias);
  Value* scale = reader->input(1);
  AttrMap attrs = conv->attrs();
  const bool requant = reader->op_type() == "AscendRequant";
  attrs.Set("dtype", static_cast<int64_t>(requant ? DataType::kInt8 : DataType::kFloat));
  attrs.Set("relu_flag", Attr<bool>(*reader, "relu_flag"));
  Value* result = reader->output(0);
  const std::string result_name = result->name();

  reader->SetInput(0, nullptr);  // frees conv, so that the fused node can take its name
  graph.RemoveNode(conv);
  Node* fused = graph.AddNode("QuantConv2D", name, {x, filter, scale, bias});
  fused->attrs() = std::move(attrs);
  fused->output(0)->set_dtype(result->dtype());
  fused->output(0)->set_shape(result->shape());
  graph.ReplaceAllUsesWith(result, fused->output(0));
  graph.RemoveNode(reader);
  fused->output(0)->set_name(result_name);
}

}  // namespace

size_t FuseQuantConv(Graph& graph) {
  std::vector<std::pair<Node*, Node*>> pairs;
  for (Node* node : graph.TopologicalOrder()) {
    if (!FoldableConv(*node)) continue;
    if (Node* reader = FoldableQuantOutput(graph, *node)) pairs.emplace_back(node, reader);
  }
  for (auto [conv, reader] : pairs) Fuse(graph, conv, reader);
  return pairs.size();
}

}  // namespace ge::quant

// Graph building: inputs, constants, nodes and outputs through GraphBuilder,
// and value inspection.
#include <fmt/core.h>

#include "c_api_internal.h"

namespace {

ge::GraphBuilder& Builder(ge_graph* handle) {
  ge::capi::Require(handle, "graph");
  ge::capi::GraphHandle* graph = FromC(handle);
  if (graph->builder == nullptr) {
    throw ge::Error(ge::ErrorCode::kInvalidArgument,
                    fmt::format("graph '{}' is complete (imported, compiled or added to a session); "
                                "build a new graph to change it",
                                graph->name));
  }
  return *graph->builder;
}

std::string OptionalString(const char* text) { return text == nullptr ? std::string() : std::string(text); }

}  // namespace

namespace ge::capi {

const Graph& CompleteGraph(GraphHandle& graph) {
  if (graph.builder != nullptr) {
    graph.complete = graph.builder->Build();  // verifies; on failure the builder stays usable
    graph.builder.reset();
  }
  return *graph.complete;
}

}  // namespace ge::capi

extern "C" {

ge_status ge_graph_create(const char* name, ge_graph** out) {
  return ge::capi::Guard("ge_graph_create", [&] {
    ge::capi::Require(out, "out");
    auto graph = std::make_unique<ge::capi::GraphHandle>();
    graph->name = name == nullptr ? "graph" : name;
    graph->builder = std::make_unique<ge::GraphBuilder>(graph->name);
    *out = ToC(graph.release());
  });
}

void ge_graph_release(ge_graph* graph) { delete FromC(graph); }

ge_status ge_graph_add_input(ge_graph* graph, const char* name, ge_dtype dtype, const int64_t* dims, size_t rank,
                             ge_value** out) {
  return ge::capi::Guard("ge_graph_add_input", [&] {
    ge::capi::Require(out, "out");
    ge::GraphBuilder& builder = Builder(graph);
    ge::Value* value =
        builder.Input(ge::capi::RequireString(name, "name"), ge::capi::ToDataType(dtype), ge::capi::ToShape(dims, rank));
    *out = ToC(value);
  });
}

ge_status ge_graph_add_constant(ge_graph* graph, const char* name, const ge_tensor* value, ge_value** out) {
  return ge::capi::Guard("ge_graph_add_constant", [&] {
    ge::capi::Require(out, "out");
    ge::capi::Require(value, "value");
    ge::GraphBuilder& builder = Builder(graph);
    *out = ToC(builder.Constant(ge::capi::RequireString(name, "name"), FromC(value)->tensor.Clone()));
  });
}

ge_status ge_graph_add_node(ge_graph* graph, const char* op_type, const char* name, ge_value* const* inputs,
                            size_t num_inputs, const ge_attrs* attrs, size_t num_outputs, ge_value** outputs) {
  return ge::capi::Guard("ge_graph_add_node", [&] {
    const std::string type = ge::capi::RequireString(op_type, "op_type");
    if (num_inputs > 0) ge::capi::Require(inputs, "inputs");
    if (num_outputs > 0) ge::capi::Require(outputs, "outputs");
    ge::GraphBuilder& builder = Builder(graph);
    std::vector<ge::Value*> values;
    for (size_t i = 0; i < num_inputs; ++i) values.push_back(FromC(inputs[i]));
    const std::map<std::string, ge::AttrValue> no_attrs;
    // The builder's messages name the node and its op.
    const std::vector<ge::Value*> results =
        builder.Op(type, values, attrs == nullptr ? no_attrs : FromC(attrs)->values, num_outputs, OptionalString(name));
    for (size_t i = 0; i < results.size() && i < num_outputs; ++i) outputs[i] = ToC(results[i]);
  });
}

ge_status ge_graph_set_outputs(ge_graph* graph, ge_value* const* values, size_t count) {
  return ge::capi::Guard("ge_graph_set_outputs", [&] {
    ge::GraphBuilder& builder = Builder(graph);
    if (count == 0) throw ge::Error(ge::ErrorCode::kInvalidArgument, "a graph needs at least one output");
    ge::capi::Require(values, "values");
    std::vector<ge::Value*> outputs;
    for (size_t i = 0; i < count; ++i) {
      if (values[i] == nullptr) throw ge::Error(ge::ErrorCode::kInvalidArgument, fmt::format("values[{}] is NULL", i));
      outputs.push_back(FromC(values[i]));
    }
    builder.Outputs(outputs);
  });
}

const char* ge_value_name(const ge_value* value) { return value == nullptr ? "" : FromC(value)->name().c_str(); }

ge_dtype ge_value_dtype(const ge_value* value) {
  return value == nullptr ? GE_DTYPE_UNDEFINED : static_cast<ge_dtype>(FromC(value)->dtype());
}

size_t ge_value_rank(const ge_value* value) {
  if (value == nullptr) return 0;
  const ge::Shape& shape = FromC(value)->shape();
  return shape.unknown_rank() ? SIZE_MAX : shape.rank();
}

const int64_t* ge_value_dims(const ge_value* value) {
  return value == nullptr ? nullptr : FromC(value)->shape().dims().data();
}

}  // extern "C"

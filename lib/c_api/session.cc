// Sessions: graphs by id with session-wide and per-graph options.
#include "c_api_internal.h"

extern "C" {

ge_status ge_session_create(const char* const* option_keys, const char* const* option_values, size_t option_count,
                            ge_session** out) {
  return ge::capi::Guard("ge_session_create", [&] {
    ge::capi::Require(out, "out");
    *out = ToC(new ge::capi::SessionHandle(ge::capi::ToOptions(option_keys, option_values, option_count)));
  });
}

void ge_session_release(ge_session* session) { delete FromC(session); }

ge_status ge_session_add_graph(ge_session* session, uint32_t graph_id, ge_graph* graph,
                               const char* const* option_keys, const char* const* option_values,
                               size_t option_count) {
  return ge::capi::Guard("ge_session_add_graph", [&] {
    ge::capi::Require(session, "session");
    ge::capi::Require(graph, "graph");
    const ge::Options options = ge::capi::ToOptions(option_keys, option_values, option_count);
    const ge::Graph& complete = ge::capi::CompleteGraph(*FromC(graph));
    FromC(session)->session.AddGraph(graph_id, complete.Clone(), options);
  });
}

ge_status ge_session_compile_graph(ge_session* session, uint32_t graph_id, ge_model** out) {
  return ge::capi::Guard("ge_session_compile_graph", [&] {
    ge::capi::Require(session, "session");
    ge::capi::Require(out, "out");
    FromC(session)->session.CompileGraph(graph_id);
    *out = ge::capi::NewModel(FromC(session)->session.GetCompiledModel(graph_id));
  });
}

ge_status ge_session_run_graph(ge_session* session, uint32_t graph_id, ge_tensor* const* inputs, size_t num_inputs,
                               ge_tensor** outputs, size_t num_outputs) {
  return ge::capi::Guard("ge_session_run_graph", [&] {
    ge::capi::Require(session, "session");
    const std::vector<ge::Tensor> tensors = ge::capi::ToTensors(inputs, num_inputs, "inputs");
    ge::capi::DeliverOutputs(FromC(session)->session.RunGraph(graph_id, tensors), outputs, num_outputs);
  });
}

}  // extern "C"

// Compiled models: compile, .gem save and load, and what they describe of
// themselves (inputs, outputs, memory plan).
#include <algorithm>
#include <cstring>

#include <fmt/core.h>

#include "c_api_internal.h"
#include "ge/profile.h"

namespace {

// Copies `full` into the caller's struct up to the size the caller declared,
// so that a caller built against an older, shorter struct keeps working, and
// sets struct_size to what was written (less for a newer, longer struct).
template <typename Struct>
void FillVersioned(const Struct& full, Struct* out) {
  if (out->struct_size < sizeof(size_t)) {
    throw ge::Error(ge::ErrorCode::kInvalidArgument, "struct_size is not set (use sizeof of the struct)");
  }
  const size_t written = std::min(out->struct_size, sizeof(Struct));
  std::memcpy(static_cast<void*>(out), &full, written);
  out->struct_size = written;
}

ge_status Info(const char* function, const ge_model* model, size_t index, ge_tensor_info* out, bool inputs) {
  return ge::capi::Guard(function, [&] {
    ge::capi::Require(model, "model");
    ge::capi::Require(out, "out");
    const std::vector<ge::TensorInfo>& infos = inputs ? FromC(model)->model->inputs() : FromC(model)->model->outputs();
    if (index >= infos.size()) {
      throw ge::Error(ge::ErrorCode::kInvalidArgument,
                      fmt::format("index {} is out of range: the model has {} {}", index, infos.size(),
                                  inputs ? "inputs" : "outputs"));
    }
    const ge::TensorInfo& info = infos[index];
    ge_tensor_info full{};
    full.struct_size = sizeof(full);
    full.name = info.name.c_str();
    full.dtype = static_cast<ge_dtype>(info.dtype);
    full.rank = info.shape.rank();
    full.dims = info.shape.dims().data();
    const std::vector<const char*>& names = (inputs ? FromC(model)->input_dim_names : FromC(model)->output_dim_names)[index];
    if (!names.empty()) full.dim_names = names.data();
    FillVersioned(full, out);
  });
}

}  // namespace

namespace ge::capi {

ge_model* NewModel(std::shared_ptr<const CompiledModel> compiled) {
  auto model = std::make_unique<ModelHandle>();
  model->memory = compiled->memory();
  for (const TensorInfo& input : compiled->inputs()) {
    std::vector<const char*>& names = model->input_dim_names.emplace_back();
    for (const std::string& name : input.dim_names) names.push_back(name.c_str());
  }
  for (const TensorInfo& output : compiled->outputs()) {
    std::vector<const char*>& names = model->output_dim_names.emplace_back();
    for (const std::string& name : output.dim_names) names.push_back(name.c_str());
  }
  model->model = std::move(compiled);
  return ToC(model.release());
}

}  // namespace ge::capi

extern "C" {

ge_status ge_compile(ge_graph* graph, const char* const* option_keys, const char* const* option_values,
                     size_t option_count, ge_model** out) {
  return ge::capi::Guard("ge_compile", [&] {
    ge::capi::Require(graph, "graph");
    ge::capi::Require(out, "out");
    const ge::Options options = ge::capi::ToOptions(option_keys, option_values, option_count);
    const ge::Graph& complete = ge::capi::CompleteGraph(*FromC(graph));
    *out = ge::capi::NewModel(ge::CompiledModel::Compile(complete.Clone(), options));
  });
}

void ge_model_release(ge_model* model) { delete FromC(model); }

ge_status ge_model_save(const ge_model* model, const char* path) {
  return ge::capi::Guard("ge_model_save", [&] {
    ge::capi::Require(model, "model");
    FromC(model)->model->Save(ge::capi::RequireString(path, "path"));
  });
}

ge_status ge_model_load(const char* path, const char* const* option_keys, const char* const* option_values,
                        size_t option_count, ge_model** out) {
  return ge::capi::Guard("ge_model_load", [&] {
    ge::capi::Require(out, "out");
    const std::string file = ge::capi::RequireString(path, "path");
    *out = ge::capi::NewModel(ge::CompiledModel::Load(file, ge::capi::ToOptions(option_keys, option_values, option_count)));
  });
}

ge_status ge_model_load_memory(const void* data, size_t size, const char* const* option_keys,
                               const char* const* option_values, size_t option_count, ge_model** out) {
  return ge::capi::Guard("ge_model_load_memory", [&] {
    ge::capi::Require(out, "out");
    ge::capi::Require(data, "data");
    *out = ge::capi::NewModel(ge::CompiledModel::LoadFromMemory(data, size, "<memory>",
                                                  ge::capi::ToOptions(option_keys, option_values, option_count)));
  });
}

size_t ge_model_input_count(const ge_model* model) { return model == nullptr ? 0 : FromC(model)->model->inputs().size(); }

size_t ge_model_output_count(const ge_model* model) {
  return model == nullptr ? 0 : FromC(model)->model->outputs().size();
}

ge_status ge_model_input_info(const ge_model* model, size_t index, ge_tensor_info* out) {
  return Info("ge_model_input_info", model, index, out, true);
}

ge_status ge_model_output_info(const ge_model* model, size_t index, ge_tensor_info* out) {
  return Info("ge_model_output_info", model, index, out, false);
}

ge_status ge_model_memory_summary(const ge_model* model, ge_memory_summary* out) {
  return ge::capi::Guard("ge_model_memory_summary", [&] {
    ge::capi::Require(model, "model");
    ge::capi::Require(out, "out");
    const ge::MemorySummary& memory = FromC(model)->memory;
    ge_memory_summary full{};
    full.struct_size = sizeof(full);
    full.const_bytes = memory.const_bytes;
    full.arena_bytes = memory.arena_bytes;
    full.no_reuse_bytes = memory.no_reuse_bytes;
    full.lower_bound_bytes = memory.lower_bound_bytes;
    full.dynamic = memory.dynamic ? 1 : 0;
    full.placement_strategy = memory.placement_strategy.c_str();
    FillVersioned(full, out);
  });
}

ge_status ge_model_run_stats(const ge_model* model, ge_run_stats* out) {
  return ge::capi::Guard("ge_model_run_stats", [&] {
    ge::capi::Require(model, "model");
    ge::capi::Require(out, "out");
    const ge::RunStats stats = FromC(model)->model->run_stats();
    ge_run_stats full{};
    full.struct_size = sizeof(full);
    full.runs = stats.runs;
    full.planned_runs = stats.planned_runs;
    full.node_by_node_runs = stats.node_by_node_runs;
    full.plans_compiled = stats.plans_compiled;
    full.kernels_built = stats.kernels_built;
    full.buffer_allocations = stats.buffer_allocations;
    full.shape_inferences = stats.shape_inferences;
    FillVersioned(full, out);
  });
}

}  // extern "C"

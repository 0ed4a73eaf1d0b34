// CompiledModel: the public face of CompiledModel::Impl (execution_plan.h).
// Compiling is compiler.cc, running executor.cc, asynchronous runs
// async_runner.cc, files gem_writer.cc/gem_reader.cc.
#include "ge/compiled_model.h"

#include "ge/profile.h"
#include "runtime/dynamic/dynamic_executor.h"
#include "runtime/execute/async_runner.h"
#include "runtime/compile/compiler.h"
#include "runtime/execution_plan.h"
#include "runtime/model_file/gem_file.h"

namespace ge {

CompiledModel::CompiledModel(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)), async_(std::make_unique<runtime::AsyncRunner>(impl_->settings.async_workers)) {}

CompiledModel::~CompiledModel() { async_.reset(); }  // waits for the queued runs while impl_ still exists

std::shared_ptr<const CompiledModel> CompiledModel::Compile(std::unique_ptr<Graph> graph, const Options& options) {
  return std::make_shared<const CompiledModel>(runtime::CompileGraph(std::move(graph), options));
}

std::shared_ptr<const CompiledModel> CompiledModel::Load(const std::string& path, const Options& options) {
  return std::make_shared<const CompiledModel>(runtime::LoadGemFile(path, options));
}

std::shared_ptr<const CompiledModel> CompiledModel::LoadFromMemory(const void* data, size_t size,
                                                                   const std::string& origin, const Options& options) {
  return std::make_shared<const CompiledModel>(runtime::LoadGemBuffer(data, size, origin, options));
}

void CompiledModel::RunAsync(std::vector<Tensor> inputs, RunCallback callback) const {
  if (!callback) throw Error(ErrorCode::kInvalidArgument, "CompiledModel::RunAsync: the callback is empty");
  // `this` outlives the task: the destructor waits for it.
  async_->Submit([this, inputs = std::move(inputs), callback = std::move(callback)] {
    callback(runtime::RunCapturingErrors([&] { return Run(inputs); }));
  });
}

void CompiledModel::Save(const std::string& path) const { runtime::SaveGemFile(*impl_, path); }

const std::vector<TensorInfo>& CompiledModel::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& CompiledModel::outputs() const { return impl_->outputs; }
MemorySummary CompiledModel::memory() const { return impl_->memory; }

RunStats CompiledModel::run_stats() const {
  if (impl_->dynamic) return impl_->dynamic->stats();
  RunStats stats;
  stats.runs = stats.planned_runs = impl_->runs.load(std::memory_order_relaxed);
  stats.buffer_allocations = impl_->arenas ? impl_->arenas->allocated() : 0;
  return stats;
}
const std::vector<PassTiming>& CompiledModel::pass_timings() const { return impl_->pass_timings; }
const Graph& CompiledModel::graph() const { return *impl_->graph; }
const std::string& CompiledModel::device_name() const { return impl_->device_name; }

}  // namespace ge

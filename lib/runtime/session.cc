#include "ge/session.h"

#include <future>

#include <fmt/core.h>

#include "ge/error.h"
#include "runtime/execute/async_runner.h"
#include "runtime/options.h"

namespace ge {

// A graph of the session. The graph is handed to the compiler on the first
// compile; every caller then shares the same result (or the same error).
struct Session::Entry {
  std::unique_ptr<Graph> graph;
  Options options;  // session options merged with the graph's
  std::shared_future<std::shared_ptr<const CompiledModel>> compiled;
};

Session::Session(Options options)
    : options_(std::move(options)),
      async_(std::make_unique<runtime::AsyncRunner>(runtime::ParseOptions(options_).async_workers)) {}

Session::~Session() { async_.reset(); }  // waits for the queued runs while the graphs still exist

Session::Entry& Session::Find(uint32_t graph_id) {
  auto it = graphs_.find(graph_id);
  if (it == graphs_.end()) {
    throw Error(ErrorCode::kNotFound, fmt::format("session has no graph with id {}", graph_id));
  }
  return *it->second;
}

void Session::AddGraph(uint32_t graph_id, std::unique_ptr<Graph> graph, const Options& options) {
  if (!graph) throw Error(ErrorCode::kInvalidArgument, fmt::format("AddGraph({}): the graph is null", graph_id));
  auto entry = std::make_unique<Entry>();
  entry->options = runtime::MergeOptions(options_, options);
  runtime::ParseOptions(entry->options);
  entry->graph = std::move(graph);
  std::lock_guard lock(mutex_);
  if (graphs_.count(graph_id) != 0) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("session already has a graph with id {}", graph_id));
  }
  graphs_[graph_id] = std::move(entry);
}

void Session::RemoveGraph(uint32_t graph_id) {
  std::lock_guard lock(mutex_);
  Find(graph_id);
  graphs_.erase(graph_id);
}

void Session::CompileGraph(uint32_t graph_id) { GetCompiledModel(graph_id); }

std::vector<Tensor> Session::RunGraph(uint32_t graph_id, const std::vector<Tensor>& inputs) {
  return GetCompiledModel(graph_id)->Run(inputs);
}

void Session::RunGraphAsync(uint32_t graph_id, std::vector<Tensor> inputs, RunCallback callback) {
  if (!callback) throw Error(ErrorCode::kInvalidArgument, "Session::RunGraphAsync: the callback is empty");
  {
    std::lock_guard lock(mutex_);
    Find(graph_id);
  }
  // `this` outlives the task: the destructor waits for it. A graph removed
  // meanwhile gives the callback kNotFound.
  async_->Submit([this, graph_id, inputs = std::move(inputs), callback = std::move(callback)] {
    callback(runtime::RunCapturingErrors([&] { return RunGraph(graph_id, inputs); }));
  });
}

std::shared_ptr<const CompiledModel> Session::GetCompiledModel(uint32_t graph_id) {
  // The first caller compiles outside the session lock, so other graphs stay
  // usable meanwhile; concurrent callers for the same graph wait for it.
  std::promise<std::shared_ptr<const CompiledModel>> promise;
  std::unique_ptr<Graph> graph;
  Options options;
  std::shared_future<std::shared_ptr<const CompiledModel>> compiled;
  {
    std::lock_guard lock(mutex_);
    Entry& entry = Find(graph_id);
    if (!entry.compiled.valid()) {
      entry.compiled = promise.get_future().share();
      graph = std::move(entry.graph);
      options = entry.options;
    }
    compiled = entry.compiled;
  }
  if (graph) {
    try {
      promise.set_value(CompiledModel::Compile(std::move(graph), options));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return compiled.get();
}

}  // namespace ge

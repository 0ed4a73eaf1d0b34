// Session: the GE-style entry point (AddGraph, CompileGraph, RunGraph).
//
// Options are string key/value pairs with GE's `ge.*` keys. Session-level
// options apply to every graph; AddGraph's options override them per graph.
// RunGraphAsync runs on the session's own run threads (ge.exec.asyncWorkers of
// the session options); destroying the session waits for those runs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/export.h"
#include "ge/graph.h"

namespace ge {

class GE_API Session {
 public:
  explicit Session(Options options = {});
  ~Session();

  // Throws ge::Error (kInvalidArgument) when the id is taken or an option is unknown.
  void AddGraph(uint32_t graph_id, std::unique_ptr<Graph> graph, const Options& options = {});
  void RemoveGraph(uint32_t graph_id);
  // Compiles once; later calls are no-ops.
  void CompileGraph(uint32_t graph_id);
  // Compiles on first use; safe to call from several threads for the same graph.
  std::vector<Tensor> RunGraph(uint32_t graph_id, const std::vector<Tensor>& inputs);
  // Queues RunGraph on the session's run threads and returns at once;
  // `callback` gets the outputs or the error (compile errors included). The
  // input tensors are shared, not copied: keep their buffers unchanged until
  // the callback. Throws kNotFound for an unknown id and kInvalidArgument for
  // an empty callback.
  void RunGraphAsync(uint32_t graph_id, std::vector<Tensor> inputs, RunCallback callback);
  std::shared_ptr<const CompiledModel> GetCompiledModel(uint32_t graph_id);

 private:
  struct Entry;
  Entry& Find(uint32_t graph_id);
  Options options_;
  std::mutex mutex_;
  std::map<uint32_t, std::unique_ptr<Entry>> graphs_;
  // Declared last, so that it is destroyed (waiting for the runs) first.
  std::unique_ptr<runtime::AsyncRunner> async_;
};

}  // namespace ge

// The execution plan inside a CompiledModel: every value numbered, where its
// bytes live during a run, and the steps (one kernel per node) in order.
// The compiler makes it, the .gem file stores it, the executor only reads it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device/kernel.h"
#include "ge/compiled_model.h"
#include "device/device.h"
#include "device/prepacked_weights.h"
#include "runtime/execute/arena_pool.h"
#include "runtime/execute/device_constants.h"
#include "runtime/options.h"

namespace ge::runtime {

class DynamicExecutor;

// Where the bytes of a value live during a run. A view (Reshape, Flatten,
// ...) has the storage of the value it views.
enum class StorageKind : uint8_t {
  kGraphInput = 0,   // the caller's input tensor `index`
  kConstant = 1,     // constant `index` of the model
  kArena = 2,        // the run's arena at `offset`
  kGraphOutput = 3,  // the run's fresh output tensor `index`, written in place by its producer
};

struct Storage {
  StorageKind kind = StorageKind::kArena;
  uint32_t index = 0;
  uint64_t offset = 0;  // kArena only
  bool operator==(const Storage&) const = default;
};

// One node of the execution order with its kernel.
struct Step {
  const Node* node = nullptr;
  std::unique_ptr<device::Kernel> kernel;
  std::string impl_mode;     // the kernel implementation mode chosen for the node
  std::vector<int> inputs;   // value ids; -1 for an absent optional input
  std::vector<int> outputs;  // value ids
  // Every output is a view of an input: the plan already shares the bytes,
  // so there is nothing to run.
  bool is_view = false;
  uint64_t workspace_offset = 0;  // in the arena
  uint64_t workspace_bytes = 0;
  // The stream (CPU: worker thread) the step runs on, in step order among
  // that stream's steps, and the steps on other streams it waits for (one
  // event each; see stream_assignment.h).
  int stream = 0;
  std::vector<int> waits;
};

}  // namespace ge::runtime

namespace ge {

class MappedFile;
class SymbolicShapes;

struct CompiledModel::Impl {
  // The device the kernels, constants and arenas belong to; declared first so
  // that it is destroyed last (an NPU device finalizes ACL).
  std::shared_ptr<device::Device> device;
  std::unique_ptr<Graph> graph;  // the optimized graph
  Options options;               // as given (stored in .gem files)
  runtime::RuntimeOptions settings;
  std::string device_name;

  std::vector<const Node*> nodes;    // topological order, Data and Const included
  std::vector<const Value*> values;  // value id -> value: the outputs of `nodes`, in order
  std::vector<Tensor> constants;     // StorageKind::kConstant index -> content
  std::vector<runtime::Step> steps;  // execution order (no Data, no Const)
  int stream_count = 1;              // streams the steps run on (at least 1)
  std::vector<int> input_values;     // graph input position -> value id
  std::vector<int> output_values;    // graph output position -> value id
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;

  // value id -> storage. A graph output whose storage is not its own output
  // tensor (a graph input, a constant, a view, a repeated value) is copied
  // into it after the steps ran.
  std::vector<runtime::Storage> storage;
  MemorySummary memory;
  std::vector<PassTiming> pass_timings;

  // Keeps a loaded model file's bytes alive: constants may point into them.
  std::shared_ptr<const void> backing;
  // The mapped .gem file the constants point into (null for a compiled graph
  // or a model loaded from a buffer): kernels built from a constant hand its
  // pages back (model_layout.cc).
  std::shared_ptr<const MappedFile> weights_file;
  // Constants whose bytes were freed once their kernels had packed them
  // (ge.exec.releasePackedConstants); such a model cannot be saved.
  size_t released_constants = 0;
  // A dynamic model's weights kept only packed (packed_weights.h), offered to
  // every kernel it builds later; null when it keeps none.
  std::shared_ptr<const device::PrepackedWeights> kept_packed;
  // Built last, once memory.arena_bytes is known.
  std::unique_ptr<runtime::ArenaPool> arenas;
  // The constants in device memory, for a device that does not share the host's.
  std::unique_ptr<runtime::DeviceConstants> device_constants;

  // Runs of the plan so far (RunStats); a dynamic model's executor counts its own.
  mutable std::atomic<uint64_t> runs{0};

  // A dynamic model's dims as expressions over its input dims' symbols
  // (graph/symbolic_shapes.h); null for a static model.
  std::shared_ptr<const SymbolicShapes> symbolic_shapes;
  // Set instead of a plan (no steps, storage or arenas; memory.dynamic) when
  // some shape is only known at run time: runs infer and run node by node.
  std::shared_ptr<const runtime::DynamicExecutor> dynamic;
};

}  // namespace ge

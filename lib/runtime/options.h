// The `ge.*` options the runtime understands, parsed and validated once.
//
// Options arrive as string key/value pairs (GE's convention). Parsing turns
// them into typed settings and rejects what ge cannot honour: an unknown key
// or a malformed value is kInvalidArgument (naming the option and the valid
// choices); a valid GE value that ge does not implement yet is kUnsupported.
// docs/options.md is the user-facing list.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "graph/impl_mode.h"

// The tsan build defines it as 1 (CMakeLists.txt, docs/runtime.md).
#ifndef GE_DEFAULT_INTRA_OP_THREADS
#define GE_DEFAULT_INTRA_OP_THREADS 0
#endif

namespace ge::runtime {

// The default bound on concurrent runs (arenas, async workers): the cores the
// process may use (UsableCores), since runs beyond it only queue for cores.
size_t DefaultRunConcurrency();

struct RuntimeOptions {
  bool disable_reuse_memory = false;         // ge.exec.disableReuseMemory
  bool release_packed_constants = false;     // ge.exec.releasePackedConstants
  std::set<std::string> disabled_passes;     // ge.disablePasses
  std::string dump_graph_dir;                // ge.dumpGraphDir
  int intra_op_threads = GE_DEFAULT_INTRA_OP_THREADS;  // ge.exec.intraOpThreads; 0 = all cores
  // Precision options (docs/precision.md). Files are named here and read
  // when a graph is compiled, not when a .gem that recorded them is loaded.
  std::string precision_mode = "must_keep_origin_dtype";  // ge.exec.precision_mode
  std::string precision_mode_v2;                          // ge.exec.precision_mode_v2; "" = not given
  std::string keep_dtype;                                 // ge.keepDtype: path of the list
  std::string modify_mixlist;                             // ge.exec.modify_mixlist: path of the JSON
  std::string impl_mode{kDefaultImplModeSelection};       // ge.opSelectImplmode
  bool impl_mode_given = false;                           // false: the default above applies
  std::vector<std::string> optypelist_for_implmode;       // ge.optypelistForImplmode
  std::string op_precision_mode;                          // ge.exec.op_precision_mode: path of the ini
  size_t max_arenas = DefaultRunConcurrency();            // ge.exec.maxArenas; 0 = no bound
  size_t async_workers = DefaultRunConcurrency();         // ge.exec.asyncWorkers; >= 1
  size_t dynamic_plan_cache_bytes = size_t{256} << 20;    // ge.exec.dynamicPlanCacheBytes; 0 = off
  size_t dynamic_plan_after_runs = 2;                    // ge.exec.dynamicPlanAfterRuns; >= 1
  bool dynamic_pack_weights = false;                     // ge.exec.dynamicPackWeights
  bool symbolic_shapes = true;                           // ge.exec.symbolicShapes
  // The most iterations one run of a Loop may take; 0 = no bound (a guard
  // against models whose loop condition never turns false).
  size_t max_loop_iterations = 0;                        // ge.exec.maxLoopIterations
  // The most bytes one tensor may claim; checked at compile time (tensor_size_cap.h).
  size_t max_tensor_bytes = size_t{64} << 30;             // ge.maxTensorBytes; >= 1
  // CPU default: one stream, since intra-op threads use the cores better
  // for most models (docs/runtime.md measures both).
  bool single_stream = true;                              // ge.enableSingleStream
  int max_streams = 4;                                    // ge.streamMaxParallelNum
  // Where the model runs (docs/ascend.md): "cpu", or "ascend" (an NPU through
  // ACL; only in builds with GE_WITH_ACL).
  std::string device = "cpu";                             // ge.exec.device
  size_t device_id = 0;                                   // ge.exec.deviceId
};

// Throws ge::Error as described above.
RuntimeOptions ParseOptions(const Options& options);

// Options that may still change when a compiled model is loaded (they do not
// affect the plan): ge.exec.intraOpThreads and the run-concurrency and
// plan-cache settings (ge.exec.maxArenas, ge.exec.asyncWorkers,
// ge.exec.dynamicPlanCacheBytes, ge.exec.dynamicPlanAfterRuns), and how a
// dynamic model's node-by-node kernels treat weights (ge.exec.dynamicPackWeights).
// Throws kInvalidArgument naming any
// other key and listing the allowed ones.
void CheckLoadOptions(const Options& options);

// `base` overridden key by key by `overrides` (session options, then graph options).
Options MergeOptions(const Options& base, const Options& overrides);

}  // namespace ge::runtime

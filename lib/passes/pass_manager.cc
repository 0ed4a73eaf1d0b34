#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <fmt/format.h>

#include "ge/error.h"
#include "passes/builtin_passes.h"
#include "passes/extra_passes.h"
#include "passes/pass.h"

namespace ge {

std::string_view PassStageName(PassStage stage) {
  switch (stage) {
    case PassStage::kImport: return "import";
    case PassStage::kBeforeInferShape: return "before_infer_shape";
    case PassStage::kInferShape: return "infer_shape";
    case PassStage::kAfterInferShape: return "after_infer_shape";
    case PassStage::kPrecision: return "precision";
    case PassStage::kQuantize: return "quantize";
    case PassStage::kDevice: return "device";
    case PassStage::kFinal: return "final";
  }
  return "unknown";
}

namespace {

std::vector<std::string> Sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

void CheckDisabledNamesExist(const std::set<std::string>& disabled, const std::vector<std::string>& registered) {
  for (const std::string& name : disabled) {
    if (std::find(registered.begin(), registered.end(), name) == registered.end()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("cannot disable unknown pass '{}'; valid pass names: {}", name,
                              fmt::join(Sorted(registered), ", ")));
    }
  }
}

// Writes the graph after the pass that produced it: <dir>/<NN>_<pass>.txt,
// NN counting the passes run so far, so that a listing sorts in run order.
void WriteDump(const Graph& graph, const std::string& dir, size_t sequence, const std::string& pass) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw Error(ErrorCode::kIoError, fmt::format("cannot create the dump directory '{}': {}", dir, ec.message()));
  }
  std::filesystem::path path = std::filesystem::path(dir) / fmt::format("{:02}_{}.txt", sequence, pass);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << DumpGraph(graph);
  out.close();
  if (!out) throw Error(ErrorCode::kIoError, fmt::format("cannot write the graph dump '{}'", path.string()));
}

}  // namespace

void PassManager::Register(PassStage stage, std::unique_ptr<Pass> pass) {
  if (pass == nullptr) throw Error(ErrorCode::kInvalidArgument, "PassManager::Register: the pass is null");
  std::string name = pass->name();
  for (const Entry& entry : entries_) {
    if (entry.pass->name() == name) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("a pass named '{}' is already registered (stage {})", name,
                              PassStageName(entry.stage)));
    }
  }
  // Kept sorted by stage; stable insertion keeps registration order within a stage.
  auto position = std::upper_bound(entries_.begin(), entries_.end(), stage,
                                   [](PassStage s, const Entry& entry) { return s < entry.stage; });
  entries_.insert(position, Entry{stage, std::move(pass)});
}

std::vector<std::string> PassManager::PassNames() const {
  std::vector<std::string> names;
  for (const Entry& entry : entries_) names.push_back(entry.pass->name());
  return names;
}

std::vector<PassTiming> PassManager::Run(Graph& graph, PassContext& ctx, const PassManagerOptions& options) const {
  CheckDisabledNamesExist(options.disabled, PassNames());
  std::vector<PassTiming> timings;
  for (const Entry& entry : entries_) {
    std::string name = entry.pass->name();
    if (options.disabled.count(name) != 0) continue;
    if (options.skip_device_stage && entry.stage == PassStage::kDevice) continue;
    auto start = std::chrono::steady_clock::now();
    try {
      entry.pass->Run(graph, ctx);
    } catch (const Error& error) {
      throw Error(error.code(), fmt::format("pass '{}': {}", name, error.what()));
    } catch (const std::exception& error) {
      // Anything else escaping a pass is a bug in ge; report it as a value, not a crash.
      throw Error(ErrorCode::kInternal, fmt::format("pass '{}': {}", name, error.what()));
    }
    std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
    timings.push_back({name, elapsed.count()});
    if (!options.dump_dir.empty()) WriteDump(graph, options.dump_dir, timings.size(), name);
  }
  return timings;
}

namespace {

struct ExtraPass {
  PassStage stage;
  PassFactory factory;
};

std::mutex extra_passes_mutex;
std::vector<ExtraPass>& ExtraPasses() {
  static std::vector<ExtraPass> passes;
  return passes;
}

PassManager BuiltinPassesOnly();

}  // namespace

void RegisterExtraPass(PassStage stage, const std::string& name, PassFactory factory) {
  std::lock_guard lock(extra_passes_mutex);
  // A pipeline with the pass added checks the name against all others.
  PassManager check = BuiltinPassesOnly();
  for (const ExtraPass& extra : ExtraPasses()) check.Register(extra.stage, extra.factory());
  std::unique_ptr<Pass> pass = factory();
  if (pass == nullptr || pass->name() != name) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("extra pass '{}': its factory made no pass of that name", name));
  }
  check.Register(stage, std::move(pass));
  ExtraPasses().push_back({stage, std::move(factory)});
}

PassManager PassManager::WithBuiltinPasses() {
  PassManager manager = BuiltinPassesOnly();
  std::lock_guard lock(extra_passes_mutex);
  for (const ExtraPass& extra : ExtraPasses()) manager.Register(extra.stage, extra.factory());
  return manager;
}

namespace {

PassManager BuiltinPassesOnly() {
  PassManager manager;
  manager.Register(PassStage::kBeforeInferShape, passes::MakeIdentityRemovalPass());
  manager.Register(PassStage::kInferShape, passes::MakeInferShapePass());
  manager.Register(PassStage::kAfterInferShape, passes::MakeConstantFoldingPass());
  manager.Register(PassStage::kAfterInferShape, passes::MakeConvBnFoldPass());
  manager.Register(PassStage::kAfterInferShape, passes::MakeConvBiasFoldPass());
  // Before impl_mode: kernels' modes depend on the dtype a node computes in.
  manager.Register(PassStage::kPrecision, passes::MakePrecisionModePass());
  manager.Register(PassStage::kPrecision, passes::MakeImplModePass());
  // After impl_mode: a fused node takes over the modes its nodes were given
  // (passes/pattern_fusion.h), and after the casts, which fix the dtypes.
  manager.Register(PassStage::kPrecision, passes::MakeLayerNormFusionPass());
  manager.Register(PassStage::kPrecision, passes::MakeGeluFusionPass());
  manager.Register(PassStage::kPrecision, passes::MakeMatMulBiasFusionPass());
  manager.Register(PassStage::kPrecision, passes::MakeTransposeMatMulFusionPass());
  manager.Register(PassStage::kFinal, passes::MakeDeadCodeEliminationPass());
  return manager;
}

}  // namespace

}  // namespace ge

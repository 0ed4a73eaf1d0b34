// CompiledModel::Run: checks the inputs, leases an arena, points every value
// at its storage and runs the steps: in order on the calling thread, or with
// several streams, each stream on its own thread (stream_assignment.h). A
// dynamic model hands the checked inputs to its DynamicExecutor instead.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/shape_accepts.h"
#include "runtime/execute/device_run.h"
#include "runtime/execute/output_binding.h"
#include "runtime/execute/run_model.h"
#include "runtime/dynamic/dynamic_executor.h"
#include "runtime/execution_plan.h"
#include "runtime/execute/intra_op_threads.h"
#include "runtime/execute/run_profiler.h"
#include "runtime/compile/stream_assignment.h"
#include "runtime/execute/stream_workers.h"

namespace ge {
namespace {

using runtime::Storage;
using runtime::StorageKind;

// The size input `i` gives its dim named `name`, or -1 when it has none.
int64_t NamedDimSize(const TensorInfo& expected, const Tensor& got, const std::string& name, size_t* axis) {
  if (got.is_container() || got.shape().rank() != expected.dim_names.size()) return -1;
  for (size_t a = 0; a < expected.dim_names.size(); ++a) {
    if (expected.dim_names[a] != name) continue;
    *axis = a;
    return got.shape().dim(a);
  }
  return -1;
}

// Dims named alike (ONNX dim_param) are one dim: each must have the size the
// first input naming it gives. Checked against the earlier inputs only, so a
// run allocates nothing for it.
void CheckNamedDims(const std::vector<TensorInfo>& expected, const std::vector<Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<std::string>& names = expected[i].dim_names;
    if (names.size() != inputs[i].shape().rank() || inputs[i].is_container()) continue;
    for (size_t a = 0; a < names.size(); ++a) {
      if (names[a].empty()) continue;
      for (size_t j = 0; j <= i; ++j) {
        size_t axis = 0;
        const int64_t size = NamedDimSize(expected[j], inputs[j], names[a], &axis);
        if (size < 0 || (j == i && axis >= a)) continue;
        if (size != inputs[i].shape().dim(a)) {
          throw Error(ErrorCode::kInvalidArgument,
                      fmt::format("input '{}' (#{}) has {} along dim {} ('{}'), but input '{}' (#{}) has {} along dim "
                                  "{} ('{}'): dims of one name must have one size",
                                  expected[i].name, i, inputs[i].shape().dim(a), a, names[a], expected[j].name, j, size,
                                  axis, names[a]));
        }
        break;
      }
    }
  }
}

void CheckInputs(const CompiledModel::Impl& impl, const std::vector<Tensor>& inputs) {
  if (inputs.size() != impl.inputs.size()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("model '{}' takes {} inputs, got {}", impl.graph->name(),
                                                         impl.inputs.size(), inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo& expected = impl.inputs[i];
    const Tensor& got = inputs[i];
    // An optional input also takes a present value as itself (ONNX Loop feeds
    // a body's optional state the sequence the previous iteration made).
    if (expected.dtype == DataType::kOptional && !got.empty()) continue;
    if (got.dtype() != expected.dtype) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("input '{}' (#{}): expected dtype {}, got {}", expected.name,
                                                           i, DataTypeName(expected.dtype), DataTypeName(got.dtype())));
    }
    if (!ShapeAccepts(expected.shape, got.shape())) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("input '{}' (#{}): expected shape {}, got {}", expected.name, i,
                              expected.shape.ToString(), got.shape().ToString()));
    }
    if (got.data() == nullptr && got.nbytes() > 0) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("input '{}' (#{}) has no data", expected.name, i));
    }
  }
  CheckNamedDims(impl.inputs, inputs);
}

// Inputs and constants are only read: kernels never write their inputs, and
// views of them are never run.
void* Address(const Storage& storage, const std::vector<Tensor>& inputs, const std::vector<Tensor>& constants,
              std::byte* arena, std::vector<Tensor>& outputs) {
  switch (storage.kind) {
    case StorageKind::kGraphInput:
      return const_cast<void*>(inputs[storage.index].data());
    case StorageKind::kConstant:
      return const_cast<void*>(constants[storage.index].data());
    case StorageKind::kArena:
      return arena + storage.offset;
    case StorageKind::kGraphOutput:
      return outputs[storage.index].data();
  }
  throw Error(ErrorCode::kInternal, "unknown storage kind");
}

// Collects the steps of a profiled run (one per stream, merged at the end).
struct StepRecorder {
  const CompiledModel::Impl* impl;
  runtime::ProfileClock::time_point run_start;
  const std::vector<size_t>* live_bytes;  // by step
  std::vector<StepProfile> steps;

  void Record(const runtime::Step& step, runtime::ProfileClock::time_point start) {
    const size_t index = static_cast<size_t>(&step - impl->steps.data());
    steps.push_back(runtime::ProfileStep(*step.node, step.is_view ? "view" : runtime::KernelName(*step.kernel),
                                         step.stream, run_start, start, (*live_bytes)[index]));
  }
};

// Runs one step: the views of its values, its workspace, its kernel.
class StepRunner {
 public:
  StepRunner(const CompiledModel::Impl& impl, const std::vector<void*>& address, std::byte* arena,
             StepRecorder* recorder = nullptr)
      : impl_(impl), address_(address), arena_(arena), recorder_(recorder) {}

  void operator()(const runtime::Step& step) {
    if (recorder_ == nullptr) return Execute(step);
    const auto start = runtime::ProfileClock::now();
    Execute(step);
    recorder_->Record(step, start);
  }

 private:
  void Execute(const runtime::Step& step) {
    if (step.is_view) return;
    inputs_.clear();
    outputs_.clear();
    for (int id : step.inputs) inputs_.push_back(View(id));
    for (int id : step.outputs) outputs_.push_back(View(id));
    device::KernelContext ctx;
    ctx.inputs = inputs_;
    ctx.outputs = outputs_;
    ctx.workspace = step.workspace_bytes > 0 ? arena_ + step.workspace_offset : nullptr;
    step.kernel->Run(ctx);
  }

  device::TensorView View(int id) const {
    if (id < 0) return device::TensorView{};  // absent optional input
    const Value& value = *impl_.values[id];
    return device::TensorView{value.dtype(), &value.shape(), address_[id]};
  }

  const CompiledModel::Impl& impl_;
  const std::vector<void*>& address_;
  std::byte* arena_;
  StepRecorder* recorder_;
  std::vector<device::TensorView> inputs_, outputs_;
};

// One run of a multi-stream plan: stream 0 on the calling thread, the others
// on workers. A step waits (asleep) until the steps it has events from are
// done; the first error stops every stream and is rethrown to the caller.
class StreamRun {
 public:
  // `recorders`: one per stream for a profiled run, else empty.
  StreamRun(const CompiledModel::Impl& impl, const std::vector<void*>& address, std::byte* arena,
            std::vector<StepRecorder>& recorders)
      : impl_(impl),
        address_(address),
        arena_(arena),
        recorders_(recorders),
        done_(impl.steps.size(), false),
        signals_(runtime::EventSources(impl.steps)),
        budget_(impl.settings.intra_op_threads, impl.stream_count),
        steps_of_(static_cast<size_t>(impl.stream_count)) {
    for (size_t s = 0; s < impl.steps.size(); ++s) steps_of_[impl.steps[s].stream].push_back(static_cast<int>(s));
  }

  void Run() {
    int workers = 0;
    try {
      for (int stream = 1; stream < impl_.stream_count; ++stream) {
        runtime::RunOnWorker([this, stream] {
          RunStream(stream);
          std::lock_guard lock(mutex_);
          ++finished_workers_;
          changed_.notify_all();
        });
        ++workers;
      }
    } catch (...) {  // no thread for a stream: stop the ones started
      Fail(std::current_exception());
    }
    RunStream(0);
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return finished_workers_ == workers; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Never throws: an error is kept for the caller and stops the other streams.
  void RunStream(int stream) noexcept {
    try {
      StepRunner run_step(impl_, address_, arena_, recorders_.empty() ? nullptr : &recorders_[stream]);
      for (int s : steps_of_[stream]) {
        const runtime::Step& step = impl_.steps[s];
        if (!WaitForEvents(step)) return;
        {
          int threads = budget_.Acquire();
          struct Give {
            runtime::ThreadBudget& budget;
            int threads;
            ~Give() { budget.Release(threads); }
          } give{budget_, threads};
          runtime::ScopedIntraOpThreads team(threads);
          run_step(step);
        }
        if (signals_[s]) {
          std::lock_guard lock(mutex_);
          done_[s] = true;
          changed_.notify_all();
        }
      }
    } catch (...) {
      Fail(std::current_exception());
    }
  }

  void Fail(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = error;
    failed_ = true;
    changed_.notify_all();
  }

  // False when another stream failed.
  bool WaitForEvents(const runtime::Step& step) {
    if (step.waits.empty()) return !failed_;
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] {
      return failed_ || std::all_of(step.waits.begin(), step.waits.end(), [&](int producer) { return done_[producer]; });
    });
    return !failed_;
  }

  const CompiledModel::Impl& impl_;
  const std::vector<void*>& address_;
  std::byte* arena_;
  std::vector<StepRecorder>& recorders_;  // one per stream when profiling, else empty
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<bool> done_;           // by step; guarded by mutex_
  const std::vector<bool> signals_;  // steps another stream waits for
  std::exception_ptr error_;         // the first error; guarded by mutex_
  std::atomic<bool> failed_ = false;  // error_ is set
  int finished_workers_ = 0;         // guarded by mutex_
  runtime::ThreadBudget budget_;
  std::vector<std::vector<int>> steps_of_;  // stream -> its steps in order
};

}  // namespace

}  // namespace ge

namespace ge::runtime {

std::vector<Tensor> RunModel(const CompiledModel& model, const std::vector<Tensor>& inputs,
                             const std::vector<Tensor>& direct, RunProfile* profile) {
  const CompiledModel::Impl& impl = model.impl();
  CheckInputs(impl, inputs);
  ScopedIntraOpThreads threads(impl.settings.intra_op_threads);
  const auto run_start = ProfileClock::now();
  if (impl.dynamic) {
    std::vector<Tensor> outputs = impl.dynamic->Run(inputs, direct, profile);
    if (profile != nullptr) FinishProfile(*profile, run_start);
    return outputs;
  }

  impl.runs.fetch_add(1, std::memory_order_relaxed);
  if (!impl.device->host_memory()) {
    if (profile != nullptr) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("model '{}': profiled runs are not supported on {}", impl.graph->name(),
                              impl.device->name()));
    }
    return RunOnDevice(impl, inputs);
  }
  ArenaPool::Lease arena = impl.arenas->Acquire();
  std::vector<Tensor> outputs;
  outputs.reserve(impl.outputs.size());
  for (size_t position = 0; position < impl.outputs.size(); ++position) {
    const TensorInfo& info = impl.outputs[position];
    if (position < direct.size() && !direct[position].empty()) {
      CheckBoundShape(info, direct[position], info.dtype, info.shape);
      outputs.push_back(direct[position]);
    } else {
      outputs.emplace_back(info.dtype, info.shape);
    }
  }

  std::vector<void*> address(impl.values.size());
  for (size_t id = 0; id < impl.values.size(); ++id) {
    address[id] = Address(impl.storage[id], inputs, impl.constants, arena.data(), outputs);
  }
  std::vector<size_t> live_bytes;
  std::vector<StepRecorder> recorders;
  if (profile != nullptr) {
    live_bytes = PlannedLiveBytes(model);
    recorders.assign(static_cast<size_t>(std::max(impl.stream_count, 1)), StepRecorder{&impl, run_start, &live_bytes, {}});
  }
  if (impl.stream_count > 1) {
    StreamRun(impl, address, arena.data(), recorders).Run();
  } else {
    StepRunner run_step(impl, address, arena.data(), recorders.empty() ? nullptr : &recorders[0]);
    for (const Step& step : impl.steps) run_step(step);
  }
  if (profile != nullptr) {
    profile->steps.clear();
    for (StepRecorder& recorder : recorders) {
      profile->steps.insert(profile->steps.end(), recorder.steps.begin(), recorder.steps.end());
    }
    FinishProfile(*profile, run_start);
  }

  for (size_t position = 0; position < outputs.size(); ++position) {
    int id = impl.output_values[position];
    bool written_in_place = impl.storage[id] == Storage{StorageKind::kGraphOutput, static_cast<uint32_t>(position), 0};
    if (written_in_place || outputs[position].nbytes() == 0) continue;
    std::memcpy(outputs[position].data(), address[id], outputs[position].nbytes());
  }
  return outputs;
}

}  // namespace ge::runtime

namespace ge {

std::vector<Tensor> CompiledModel::Run(const std::vector<Tensor>& inputs) const { return Run(inputs, nullptr); }

std::vector<Tensor> CompiledModel::Run(const std::vector<Tensor>& inputs, RunProfile* profile) const {
  return runtime::RunModel(*this, inputs, {}, profile);
}

std::vector<Tensor> CompiledModel::RunInto(const std::vector<Tensor>& inputs,
                                           const std::vector<Tensor>& output_buffers) const {
  runtime::CheckOutputBuffers(impl_->outputs, output_buffers);
  std::vector<Tensor> outputs =
      runtime::RunModel(*this, inputs, runtime::DirectOutputBuffers(output_buffers, inputs), nullptr);
  runtime::DeliverIntoBuffers(impl_->outputs, output_buffers, outputs);
  return outputs;
}

}  // namespace ge

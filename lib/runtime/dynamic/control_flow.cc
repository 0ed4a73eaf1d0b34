#include "runtime/dynamic/control_flow.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/axis_view.h"
#include "graph/shape_inference_utils.h"
#include "runtime/options.h"

namespace ge::runtime {
namespace {

using ModelPtr = std::shared_ptr<const CompiledModel>;

// Prefixes errors with the context (node, subgraph, iteration) that
// `describe` returns, so they say where they happened. The context is only
// formatted on the error path: loops call this once per iteration.
template <typename Describe, typename Fn>
auto WithContext(Describe&& describe, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {}", describe(), e.what()));
  }
}

bool Condition(const Tensor& tensor, std::string_view what) {
  if (tensor.dtype() != DataType::kBool || tensor.num_elements() != 1) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("{} must be one bool, got {}{}", what,
                                                         DataTypeName(tensor.dtype()), tensor.shape().ToString()));
  }
  return *tensor.data_as<bool>();
}

// A one-element tensor shaped as the subgraph declares it ([] or [1]).
template <typename T>
Tensor ScalarFor(const TensorInfo& input, DataType dtype, T value) {
  Shape shape = input.shape.IsStatic() && input.shape.NumElements() == 1 ? input.shape : Shape{};
  return Tensor::FromVector(dtype, std::move(shape), std::vector<T>{value});
}

// The bytes of one step along `axis` of a tensor viewed around it.
size_t StepBytes(const AxisView& view, DataType dtype) { return static_cast<size_t>(view.inner) * DataTypeSize(dtype); }

// Element `index` of `tensor` along `axis`, the axis removed.
Tensor SliceAt(const Tensor& tensor, size_t axis, int64_t index) {
  std::vector<int64_t> dims = tensor.shape().dims();
  dims.erase(dims.begin() + static_cast<ptrdiff_t>(axis));
  Tensor slice(tensor.dtype(), Shape(std::move(dims)));
  const AxisView view = ViewAround(tensor.shape().dims(), axis);
  const size_t step = StepBytes(view, tensor.dtype());
  const auto* source = static_cast<const std::byte*>(tensor.data());
  auto* target = static_cast<std::byte*>(slice.data());
  for (int64_t o = 0; o < view.outer; ++o) {
    std::memcpy(target + o * step, source + (o * view.length + index) * step, step);
  }
  return slice;
}

// The slices of one scan output, gathered over the iterations. Together
// they are the stacked output's bytes, which must stay within
// ge.maxTensorBytes: checked as each comes, so a loop of many iterations
// over a large slice fails at the iteration that passes the cap instead of
// gathering gigabytes first.
class ScanSlices {
 public:
  // `node` and `index` name the output in the error.
  void Add(Tensor slice, uint64_t max_bytes, const std::string& node, size_t index) {
    bytes_ += slice.nbytes();
    if (bytes_ > max_bytes) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: scan output {}: {} slices take {} bytes, above the cap (ge.maxTensorBytes) of "
                              "{} bytes",
                              node, index, slices_.size() + 1, bytes_, max_bytes));
    }
    slices_.push_back(std::move(slice));
  }
  const std::vector<Tensor>& slices() const { return slices_; }

 private:
  std::vector<Tensor> slices_;
  uint64_t bytes_ = 0;
};

// The slices of one scan output stacked along a new `axis`, the last slice
// first when `reverse`. With no slices the result is empty along `axis`
// and shaped as the subgraph declares its output elsewhere (when it can).
Tensor Stack(const std::vector<Tensor>& slices, size_t axis, bool reverse, const TensorInfo& declared,
             const std::string& what) {
  if (slices.empty()) {
    std::vector<int64_t> dims;
    if (declared.shape.IsStatic() && axis <= declared.shape.rank()) dims = declared.shape.dims();
    dims.insert(dims.begin() + static_cast<ptrdiff_t>(std::min(axis, dims.size())), 0);
    return Tensor(declared.dtype, Shape(std::move(dims)));
  }
  const Shape& slice_shape = slices[0].shape();
  if (axis > slice_shape.rank()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: axis {} is outside the slices' rank {} + 1", what, axis,
                                                         slice_shape.rank()));
  }
  std::vector<int64_t> dims = slice_shape.dims();
  dims.insert(dims.begin() + static_cast<ptrdiff_t>(axis), static_cast<int64_t>(slices.size()));
  Tensor stacked(slices[0].dtype(), Shape(std::move(dims)));
  const AxisView view = ViewAround(stacked.shape().dims(), axis);
  const size_t step = StepBytes(view, stacked.dtype());
  auto* target = static_cast<std::byte*>(stacked.data());
  for (size_t i = 0; i < slices.size(); ++i) {
    if (slices[i].shape() != slice_shape || slices[i].dtype() != slices[0].dtype()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: iteration {} gives {}{} but iteration 0 gave {}{}; scan outputs must keep one "
                              "shape",
                              what, i, DataTypeName(slices[i].dtype()), slices[i].shape().ToString(),
                              DataTypeName(slices[0].dtype()), slice_shape.ToString()));
    }
    const int64_t position = reverse ? static_cast<int64_t>(slices.size() - 1 - i) : static_cast<int64_t>(i);
    const auto* source = static_cast<const std::byte*>(slices[i].data());
    for (int64_t o = 0; o < view.outer; ++o) {
      std::memcpy(target + (o * view.length + position) * step, source + o * step, step);
    }
  }
  return stacked;
}

class IfOp : public ControlFlowOp {
 public:
  IfOp(const Node& node, const Options& options)
      : name_(node.Describe()),
        then_branch_(CompileSubgraph(node, "then_branch", options, 1, 1)),
        else_branch_(CompileSubgraph(node, "else_branch", options, 1, 1)) {}

  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const override {
    const bool cond = WithContext([&] { return name_; }, [&] { return Condition(inputs.at(0), "cond"); });
    std::vector<Tensor> branch_inputs(inputs.begin() + 1, inputs.end());
    return WithContext([&] { return fmt::format("{}: {}", name_, cond ? "then_branch" : "else_branch"); },
                       [&] { return (cond ? then_branch_ : else_branch_)->Run(branch_inputs); });
  }

 private:
  std::string name_;
  ModelPtr then_branch_;
  ModelPtr else_branch_;
};

// Inputs: M, cond, carried values, implicit inputs (see control_flow_ops.cc).
class LoopOp : public ControlFlowOp {
 public:
  LoopOp(const Node& node, const Options& options)
      : name_(node.Describe()),
        body_(CompileSubgraph(node, "body", options, FirstImplicitInput(node), 0)),
        max_tensor_bytes_(ParseOptions(options).max_tensor_bytes),
        max_iterations_(ParseOptions(options).max_loop_iterations) {
    const size_t implicit = static_cast<size_t>(node.attrs().GetInt("num_implicit_inputs"));
    carried_ = std::max<size_t>(node.num_inputs(), 2) - 2 - implicit;
    scanned_ = body_->outputs().size() - 1 - carried_;
    true_ = ScalarFor<uint8_t>(body_->inputs()[1], DataType::kBool, 1);  // bool is one byte
  }

  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const override {
    auto input = [&](size_t i) -> const Tensor* { return i < inputs.size() && !inputs[i].empty() ? &inputs[i] : nullptr; };
    std::optional<int64_t> trip_count;
    if (const Tensor* m = input(0)) {
      if (m->num_elements() != 1) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: M must hold one element, got {}", name_, m->shape().ToString()));
      }
      trip_count = m->ToInt64Vector()[0];
    }
    bool cond = true;
    if (const Tensor* c = input(1)) cond = WithContext([&] { return name_; }, [&] { return Condition(*c, "cond"); });

    // Body inputs: iteration, cond, carried..., implicit...; the carried
    // ones are replaced after each iteration. The body only reads its
    // inputs and hands back copies of any it outputs, so one iteration
    // number tensor per run is rewritten in place, and cond is true_ (the
    // body only runs while it holds).
    std::vector<Tensor> body_inputs{ScalarFor<int64_t>(body_->inputs()[0], DataType::kInt64, 0), true_};
    for (size_t i = 2; i < inputs.size(); ++i) body_inputs.push_back(inputs[i]);
    std::vector<ScanSlices> scans(scanned_);
    int64_t iteration = 0;
    for (; (!trip_count || iteration < *trip_count) && cond; ++iteration) {
      if (max_iterations_ != 0 && static_cast<uint64_t>(iteration) == max_iterations_) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: the body ran {} iterations, the bound ge.exec.maxLoopIterations sets, and its "
                                "condition still holds",
                                name_, iteration));
      }
      *body_inputs[0].data_as<int64_t>() = iteration;
      auto context = [&] { return fmt::format("{}: body, iteration {}", name_, iteration); };
      std::vector<Tensor> outputs = WithContext(context, [&] { return body_->Run(body_inputs); });
      cond = WithContext(context, [&] { return Condition(outputs[0], "the body's cond output"); });
      for (size_t i = 0; i < carried_; ++i) body_inputs[2 + i] = std::move(outputs[1 + i]);
      for (size_t j = 0; j < scanned_; ++j) {
        scans[j].Add(std::move(outputs[1 + carried_ + j]), max_tensor_bytes_, name_, j);
      }
    }

    std::vector<Tensor> results;
    for (size_t i = 0; i < carried_; ++i) {
      // Without an iteration it is the initial value, copied to be a buffer of its own.
      results.push_back(iteration == 0 ? body_inputs[2 + i].Clone() : std::move(body_inputs[2 + i]));
    }
    for (size_t j = 0; j < scanned_; ++j) {
      results.push_back(Stack(scans[j].slices(), 0, false, body_->outputs()[1 + carried_ + j],
                              fmt::format("{}: scan output {}", name_, j)));
    }
    return results;
  }

 private:
  std::string name_;
  ModelPtr body_;
  uint64_t max_tensor_bytes_;
  uint64_t max_iterations_;  // 0: no bound
  size_t carried_ = 0;
  size_t scanned_ = 0;
  Tensor true_;  // the body's cond input, shared by every iteration of every run
};

// Inputs: states, sequences, implicit inputs (see control_flow_ops.cc).
class ScanOp : public ControlFlowOp {
 public:
  ScanOp(const Node& node, const Options& options)
      : name_(node.Describe()),
        body_(CompileSubgraph(node, "body", options, FirstImplicitInput(node), 0)),
        max_tensor_bytes_(ParseOptions(options).max_tensor_bytes),
        input_axes_(node.attrs().GetInts("scan_input_axes")),
        input_reversed_(node.attrs().GetInts("scan_input_directions")),
        output_axes_(node.attrs().GetInts("scan_output_axes")),
        output_reversed_(node.attrs().GetInts("scan_output_directions")) {
    sequences_ = static_cast<size_t>(node.attrs().GetInt("num_scan_inputs"));
    const size_t implicit = static_cast<size_t>(node.attrs().GetInt("num_implicit_inputs"));
    states_ = node.num_inputs() - sequences_ - implicit;
    scanned_ = node.num_outputs() - states_;
  }

  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const override {
    std::vector<size_t> axes(sequences_);
    int64_t length = -1;
    for (size_t k = 0; k < sequences_; ++k) {
      const Shape& shape = inputs[states_ + k].shape();
      axes[k] = static_cast<size_t>(Normalized(Entry(input_axes_, k), shape.rank(), "scan_input_axes"));
      if (length >= 0 && shape.dim(axes[k]) != length) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: scan input {} has {} elements along axis {}, but scan input 0 has {}", name_, k,
                                shape.dim(axes[k]), axes[k], length));
      }
      length = shape.dim(axes[k]);
    }

    std::vector<Tensor> body_inputs(inputs.begin(), inputs.end());  // states and implicit stay, slices change
    std::vector<ScanSlices> scans(scanned_);
    for (int64_t t = 0; t < length; ++t) {
      for (size_t k = 0; k < sequences_; ++k) {
        const int64_t index = Entry(input_reversed_, k) != 0 ? length - 1 - t : t;
        body_inputs[states_ + k] = SliceAt(inputs[states_ + k], axes[k], index);
      }
      std::vector<Tensor> outputs = WithContext([&] { return fmt::format("{}: body, iteration {}", name_, t); },
                                                [&] { return body_->Run(body_inputs); });
      for (size_t i = 0; i < states_; ++i) body_inputs[i] = std::move(outputs[i]);
      for (size_t j = 0; j < scanned_; ++j) scans[j].Add(std::move(outputs[states_ + j]), max_tensor_bytes_, name_, j);
    }

    std::vector<Tensor> results;
    for (size_t i = 0; i < states_; ++i) results.push_back(length == 0 ? inputs[i].Clone() : body_inputs[i]);
    for (size_t j = 0; j < scanned_; ++j) {
      const TensorInfo& declared = body_->outputs()[states_ + j];
      const std::vector<Tensor>& slices = scans[j].slices();
      const size_t slice_rank = slices.empty() ? declared.shape.rank() : slices[0].shape().rank();
      const int64_t axis = Normalized(Entry(output_axes_, j), slice_rank + 1, "scan_output_axes");
      results.push_back(Stack(slices, static_cast<size_t>(axis), Entry(output_reversed_, j) != 0, declared,
                              fmt::format("{}: scan output {}", name_, j)));
    }
    return results;
  }

 private:
  // Empty lists mean 0 for every entry.
  static int64_t Entry(const std::vector<int64_t>& values, size_t i) { return i < values.size() ? values[i] : 0; }

  int64_t Normalized(int64_t axis, size_t rank, const char* attr) const {
    return WithContext([&] { return fmt::format("{}: {}", name_, attr); }, [&] { return NormalizeAxis(axis, rank); });
  }

  std::string name_;
  ModelPtr body_;
  uint64_t max_tensor_bytes_;
  std::vector<int64_t> input_axes_;
  std::vector<int64_t> input_reversed_;
  std::vector<int64_t> output_axes_;
  std::vector<int64_t> output_reversed_;
  size_t sequences_ = 0;
  size_t states_ = 0;
  size_t scanned_ = 0;
};

// Inputs: the subgraph's, in order; runs it once.
class CallOp : public ControlFlowOp {
 public:
  CallOp(const Node& node, const Options& options)
      : name_(node.Describe()), body_(CompileSubgraph(node, "f", options, 0, 0)) {}

  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const override {
    return WithContext([&] { return fmt::format("{}: f", name_); }, [&] { return body_->Run(inputs); });
  }

 private:
  std::string name_;
  ModelPtr body_;
};

}  // namespace

size_t FirstImplicitInput(const Node& node) {
  const auto implicit = static_cast<size_t>(node.attrs().GetInt("num_implicit_inputs"));
  return node.num_inputs() - std::min(implicit, node.num_inputs());
}

std::shared_ptr<const CompiledModel> CompileSubgraph(const Node& node, const std::string& attr, const Options& options,
                                                     size_t invariant_from, size_t input_offset) {
  return WithContext([&] { return fmt::format("{}: subgraph '{}'", node.Describe(), attr); }, [&] {
    std::unique_ptr<Graph> subgraph = node.attrs().GetGraph(attr).Clone();
    const std::vector<Value*> subgraph_inputs = subgraph->inputs();
    for (size_t i = std::max(invariant_from, input_offset); i < node.num_inputs(); ++i) {
      const Value* outer = node.input(i);
      const size_t inner = i - input_offset;
      if (outer == nullptr || outer->constant() == nullptr || inner >= subgraph_inputs.size()) continue;
      // The input stays declared (the node still passes it) but nothing reads it.
      Value* constant = subgraph->AddConstant(subgraph->UniqueName(subgraph_inputs[inner]->name()), *outer->constant());
      subgraph->ReplaceAllUsesWith(subgraph_inputs[inner], constant);
    }
    return ModelPtr(CompiledModel::Compile(std::move(subgraph), options));
  });
}

bool ControlFlowOp::Handles(std::string_view op_type) {
  return op_type == "If" || op_type == "Loop" || op_type == "Scan" || op_type == "PartitionedCall";
}

std::unique_ptr<ControlFlowOp> ControlFlowOp::Create(const Node& node, const Options& options) {
  if (node.op_type() == "If") return std::make_unique<IfOp>(node, options);
  if (node.op_type() == "Loop") return std::make_unique<LoopOp>(node, options);
  if (node.op_type() == "Scan") return std::make_unique<ScanOp>(node, options);
  if (node.op_type() == "PartitionedCall") return std::make_unique<CallOp>(node, options);
  throw Error(ErrorCode::kInternal, fmt::format("{}: not a control-flow op", node.Describe()));
}

}  // namespace ge::runtime

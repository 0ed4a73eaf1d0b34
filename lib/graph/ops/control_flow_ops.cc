// Control flow: If, Loop and Scan, and PartitionedCall, which runs its
// subgraph once (the part of a dynamic model planned statically for one
// input-shape signature, dynamic_executor.cc). Each holds its subgraphs as graph
// attributes. A subgraph is closed: every value it reads from an enclosing
// graph is an explicit input of the node (after the op's own inputs, counted
// by num_implicit_inputs) and a Data input of the subgraph at the same
// position. The runtime runs the subgraphs; inference here only derives what
// the subgraphs' declared outputs and the node's inputs tell.
#include <fmt/core.h>

#include <algorithm>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

// What two shapes have in common: equal dims stay, others become unknown.
Shape CommonShape(const Shape& a, const Shape& b) {
  if (a.unknown_rank() || b.unknown_rank() || a.rank() != b.rank()) return Shape::UnknownRank();
  std::vector<int64_t> dims(a.rank());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = a.dim(i) == b.dim(i) ? a.dim(i) : kUnknown;
  return Shape(std::move(dims));
}

const Graph& Subgraph(InferContext& ctx, const std::string& attr) {
  return infer::Guarded(ctx, "", [&]() -> const Graph& { return ctx.attrs().GetGraph(attr); });
}

void RequireSubgraphArity(InferContext& ctx, const Graph& graph, const std::string& attr, size_t inputs,
                          size_t outputs) {
  if (graph.inputs().size() != inputs || graph.outputs().size() != outputs) {
    ctx.Fail(fmt::format("subgraph '{}' has {} inputs and {} outputs; this node needs {} inputs and {} outputs", attr,
                         graph.inputs().size(), graph.outputs().size(), inputs, outputs));
  }
}

void RequireScalar(InferContext& ctx, size_t input, const std::string& what) {
  const Shape& shape = ctx.input_shape(input);
  if (!shape.unknown_rank() && shape.NumElements() != kUnknown && shape.NumElements() != 1) {
    ctx.Fail(fmt::format("{} must hold one element, got shape {}", what, shape.ToString()));
  }
}

// `inputs` counts trailing absent inputs too; `own` is how many inputs precede the implicit ones at least.
size_t ImplicitInputs(InferContext& ctx, size_t inputs, size_t own) {
  const int64_t implicit = infer::Attr<int64_t>(ctx, "num_implicit_inputs");
  if (implicit < 0 || static_cast<size_t>(implicit) + own > inputs) {
    ctx.Fail(fmt::format("num_implicit_inputs is {}, but the node has {} inputs of which at least {} are its own",
                         implicit, inputs, own));
  }
  return static_cast<size_t>(implicit);
}

// then_branch and else_branch take every input after cond.
void InferIf(InferContext& ctx) {
  RequireScalar(ctx, 0, "cond");
  const Graph& then_branch = Subgraph(ctx, "then_branch");
  const Graph& else_branch = Subgraph(ctx, "else_branch");
  RequireSubgraphArity(ctx, then_branch, "then_branch", ctx.num_inputs() - 1, ctx.num_outputs());
  RequireSubgraphArity(ctx, else_branch, "else_branch", ctx.num_inputs() - 1, ctx.num_outputs());
  const Tensor* cond = ctx.input_constant(0);
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    const Value& a = *then_branch.outputs()[i];
    const Value& b = *else_branch.outputs()[i];
    if (a.dtype() != b.dtype() && a.dtype() != DataType::kUndefined && b.dtype() != DataType::kUndefined) {
      ctx.Fail(fmt::format("output {}: then_branch gives {} but else_branch gives {}", i, DataTypeName(a.dtype()),
                           DataTypeName(b.dtype())));
    }
    const DataType dtype = a.dtype() != DataType::kUndefined ? a.dtype() : b.dtype();
    Shape shape = CommonShape(a.shape(), b.shape());
    if (cond != nullptr && cond->num_elements() == 1) shape = cond->ToInt64Vector()[0] != 0 ? a.shape() : b.shape();
    ctx.set_output(i, dtype, std::move(shape));
  }
}

// Inputs: M, cond, N loop-carried values, implicit inputs. The body takes
// (iteration, cond, carried..., implicit...) and gives (cond, carried...,
// scan outputs...); the node gives the final carried values, then each scan
// output stacked over the iterations.
void InferLoop(InferContext& ctx) {
  const size_t inputs = std::max<size_t>(ctx.num_inputs(), 2);  // absent trailing M or cond may be left out
  const size_t implicit = ImplicitInputs(ctx, inputs, 2);
  const size_t carried = inputs - 2 - implicit;
  if (ctx.num_outputs() < carried) {
    ctx.Fail(fmt::format("has {} loop-carried values but only {} outputs", carried, ctx.num_outputs()));
  }
  const size_t scanned = ctx.num_outputs() - carried;
  if (ctx.has_input(0)) RequireScalar(ctx, 0, "M");
  if (ctx.has_input(1)) RequireScalar(ctx, 1, "cond");
  const Graph& body = Subgraph(ctx, "body");
  RequireSubgraphArity(ctx, body, "body", inputs, 1 + carried + scanned);
  for (size_t i = 0; i < carried; ++i) {
    const Value& next = *body.outputs()[1 + i];
    ctx.set_output(i, ctx.input_dtype(2 + i), CommonShape(ctx.input_shape(2 + i), next.shape()));
  }
  for (size_t j = 0; j < scanned; ++j) {
    const Value& slice = *body.outputs()[1 + carried + j];
    Shape shape = Shape::UnknownRank();
    if (!slice.shape().unknown_rank()) {
      std::vector<int64_t> dims{kUnknown};
      dims.insert(dims.end(), slice.shape().dims().begin(), slice.shape().dims().end());
      shape = Shape(std::move(dims));
    }
    ctx.set_output(carried + j, slice.dtype(), std::move(shape));
  }
}

// An axis of `attr` (absent entries are 0) normalized for `rank`.
int64_t ScanAxis(InferContext& ctx, const std::string& attr, size_t index, size_t rank) {
  const std::vector<int64_t>& axes = infer::Attr<std::vector<int64_t>>(ctx, attr);
  if (!axes.empty() && axes.size() <= index) ctx.Fail(fmt::format("{} has {} entries, too few", attr, axes.size()));
  return infer::Axis(ctx, axes.empty() ? 0 : axes[index], rank, attr);
}

// Inputs: N states, num_scan_inputs sequences, implicit inputs. The body takes
// (states..., one slice of each sequence..., implicit...) and gives (states...,
// scan output slices...).
void InferScan(InferContext& ctx) {
  const int64_t sequences = infer::Attr<int64_t>(ctx, "num_scan_inputs");
  if (sequences < 1) ctx.Fail(fmt::format("num_scan_inputs is {}; it must be at least 1", sequences));
  const size_t scan_inputs = static_cast<size_t>(sequences);
  const size_t implicit = ImplicitInputs(ctx, ctx.num_inputs(), scan_inputs);
  const size_t states = ctx.num_inputs() - scan_inputs - implicit;
  if (ctx.num_outputs() < states) {
    ctx.Fail(fmt::format("has {} state inputs but only {} outputs", states, ctx.num_outputs()));
  }
  const size_t scanned = ctx.num_outputs() - states;
  const Graph& body = Subgraph(ctx, "body");
  RequireSubgraphArity(ctx, body, "body", ctx.num_inputs(), states + scanned);

  int64_t length = kUnknown;  // iterations: the scanned axis of the sequences
  for (size_t i = 0; i < scan_inputs; ++i) {
    const Shape& shape = ctx.input_shape(states + i);
    if (shape.unknown_rank()) continue;
    if (shape.rank() == 0) ctx.Fail(fmt::format("scan input {} is a scalar; it needs an axis to scan", i));
    const int64_t axis = ScanAxis(ctx, "scan_input_axes", i, shape.rank());
    length = infer::MergeDim(ctx, length, shape.dim(static_cast<size_t>(axis)), "the scanned length of the inputs");
  }
  for (size_t i = 0; i < states; ++i) {
    ctx.set_output(i, ctx.input_dtype(i), CommonShape(ctx.input_shape(i), body.outputs()[i]->shape()));
  }
  for (size_t j = 0; j < scanned; ++j) {
    const Value& slice = *body.outputs()[states + j];
    Shape shape = Shape::UnknownRank();
    if (!slice.shape().unknown_rank()) {
      std::vector<int64_t> dims = slice.shape().dims();
      const int64_t axis = ScanAxis(ctx, "scan_output_axes", j, dims.size() + 1);
      dims.insert(dims.begin() + axis, length);
      shape = Shape(std::move(dims));
    }
    ctx.set_output(states + j, slice.dtype(), std::move(shape));
  }
}

// The subgraph takes the node's inputs and gives its outputs, as declared.
void InferPartitionedCall(InferContext& ctx) {
  const Graph& body = Subgraph(ctx, "f");
  RequireSubgraphArity(ctx, body, "f", ctx.num_inputs(), ctx.num_outputs());
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    ctx.set_output(i, body.outputs()[i]->dtype(), body.outputs()[i]->shape());
  }
}

}  // namespace

void RegisterControlFlowOps(OpRegistry& registry) {
  const std::vector<DataType> conditions{DataType::kBool};
  registry.Register(OpSchema("If")
                        .Input("cond", "B")
                        .DynamicInput("inputs", "", 0)
                        .DynamicOutput("outputs", "")
                        .RequiredAttr("then_branch", AttrType::kGraph)
                        .RequiredAttr("else_branch", AttrType::kGraph)
                        .TypeConstraint("B", conditions)
                        .Infer(InferIf)
                        .Doc("Runs then_branch when cond (one element) is true, else else_branch; both take the inputs "
                             "after cond and give the outputs."));
  registry.Register(OpSchema("Loop")
                        .OptionalInput("max_trip_count", "I")
                        .OptionalInput("cond", "B")
                        .DynamicInput("inputs", "", 0)
                        .DynamicOutput("outputs", "")
                        .RequiredAttr("body", AttrType::kGraph)
                        .Attr("num_implicit_inputs", int64_t{0})
                        .TypeConstraint("I", {DataType::kInt64})
                        .TypeConstraint("B", conditions)
                        .Infer(InferLoop)
                        .Doc("ONNX Loop: runs body while the iteration count is below max_trip_count and cond holds; "
                             "the last num_implicit_inputs inputs are values the body reads from outside."));
  registry.Register(OpSchema("Scan")
                        .DynamicInput("inputs", "")
                        .DynamicOutput("outputs", "")
                        .RequiredAttr("body", AttrType::kGraph)
                        .RequiredAttr("num_scan_inputs", AttrType::kInt)
                        .Attr("num_implicit_inputs", int64_t{0})
                        .Attr("scan_input_axes", std::vector<int64_t>{})
                        .Attr("scan_input_directions", std::vector<int64_t>{})
                        .Attr("scan_output_axes", std::vector<int64_t>{})
                        .Attr("scan_output_directions", std::vector<int64_t>{})
                        .Infer(InferScan)
                        .Doc("ONNX Scan (opset 9+): runs body once per slice of the scan inputs, carrying states; "
                             "empty axes/directions lists mean 0 for every input or output."));
  registry.Register(OpSchema("PartitionedCall")
                        .DynamicInput("args", "", 0)
                        .DynamicOutput("outputs", "")
                        .RequiredAttr("f", AttrType::kGraph)
                        .Infer(InferPartitionedCall)
                        .Doc("Runs subgraph f once on the inputs and gives its outputs (TensorFlow's PartitionedCall)."));
}

}  // namespace ge

// ONNX's sequences and optionals: values that hold other values (a Tensor
// of dtype kSequence or kOptional, ge/tensor.h). The IR knows a container's
// kind, not its elements, so the ops that give an element back (SequenceAt,
// ConcatFromSequence, OptionalGetElement) carry its dtype as attribute
// "dtype", which the importer takes from the model's types. A container's
// shape is [its length], unknown until a run; the runtime runs these ops on
// whole values (runtime/dynamic/sequence_ops.cc), never through kernels.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <optional>

#include "graph/ops/infer_helpers.h"
#include "graph/sequence_op_types.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

constexpr std::array<std::string_view, 12> kSequenceOpTypes = {
    "SequenceEmpty",   "SequenceConstruct",  "SequenceInsert", "SequenceErase", "SequenceAt",
    "SequenceLength",  "SplitToSequence",    "ConcatFromSequence", "SequenceMap", "Optional",
    "OptionalHasElement", "OptionalGetElement"};

const Shape kUnknownLength{Shape::kUnknownDim};

void RequireKind(InferContext& ctx, size_t input, DataType kind) {
  const DataType dtype = ctx.input_dtype(input);
  if (dtype != DataType::kUndefined && dtype != kind) {
    ctx.Fail(fmt::format("input {} must be a {}, got {}", input, DataTypeName(kind), DataTypeName(dtype)));
  }
}

void RequireTensor(InferContext& ctx, size_t input) {
  if (IsContainer(ctx.input_dtype(input))) {
    ctx.Fail(fmt::format("input {} must be a tensor, got a {}", input, DataTypeName(ctx.input_dtype(input))));
  }
}

// A sequence built or changed from input 0 (when it is one) and tensors.
void InferSequence(InferContext& ctx) { ctx.set_output(0, DataType::kSequence, kUnknownLength); }

void InferSequenceEdit(InferContext& ctx) {
  RequireKind(ctx, 0, DataType::kSequence);
  InferSequence(ctx);
}

void InferSequenceConstruct(InferContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    RequireTensor(ctx, i);
    if (ctx.input_dtype(i) != ctx.input_dtype(0)) {
      ctx.Fail(fmt::format("input {} is {} but input 0 is {}; a sequence holds one dtype", i,
                           DataTypeName(ctx.input_dtype(i)), DataTypeName(ctx.input_dtype(0))));
    }
  }
  InferSequence(ctx);
}

// An element of input 0, of the dtype the "dtype" attribute names.
void InferElement(InferContext& ctx) {
  ctx.set_output(0, infer::Attr<DataType>(ctx, "dtype"), Shape::UnknownRank());
}

// The elements' dims as an importer declares them (TensorFlow's TensorList
// element_shape; -1 for an unknown dim), or nullopt when it declares none.
std::optional<std::vector<int64_t>> DeclaredElementDims(InferContext& ctx) {
  const std::vector<int64_t>& dims = infer::Attr<std::vector<int64_t>>(ctx, "element_shape");
  if (dims.empty()) return std::nullopt;
  for (int64_t d : dims) {
    if (d < -1) ctx.Fail(fmt::format("element_shape holds {}; dims are -1 (unknown) or at least 0", d));
  }
  return dims;
}

void InferSequenceAt(InferContext& ctx) {
  RequireKind(ctx, 0, DataType::kSequence);
  const std::optional<std::vector<int64_t>> dims = DeclaredElementDims(ctx);
  ctx.set_output(0, infer::Attr<DataType>(ctx, "dtype"), dims ? Shape(*dims) : Shape::UnknownRank());
}

void InferSequenceLength(InferContext& ctx) {
  RequireKind(ctx, 0, DataType::kSequence);
  ctx.set_output(0, DataType::kInt64, Shape{});
}

void InferSplitToSequence(InferContext& ctx) {
  RequireTensor(ctx, 0);
  InferSequence(ctx);
}

// With declared element dims: the concatenated axis (or the new one) is
// unknown, the others are the elements'.
void InferConcatFromSequence(InferContext& ctx) {
  RequireKind(ctx, 0, DataType::kSequence);
  std::optional<std::vector<int64_t>> dims = DeclaredElementDims(ctx);
  if (!dims) return InferElement(ctx);
  const bool new_axis = infer::Attr<int64_t>(ctx, "new_axis") != 0;
  const size_t rank = dims->size() + (new_axis ? 1 : 0);
  const auto axis = static_cast<size_t>(infer::Axis(ctx, infer::Attr<int64_t>(ctx, "axis"), rank, "axis"));
  if (new_axis) {
    dims->insert(dims->begin() + static_cast<std::ptrdiff_t>(axis), Shape::kUnknownDim);
  } else {
    (*dims)[axis] = Shape::kUnknownDim;
  }
  ctx.set_output(0, infer::Attr<DataType>(ctx, "dtype"), Shape(*dims));
}

void InferSequenceMap(InferContext& ctx) {
  RequireKind(ctx, 0, DataType::kSequence);
  const Graph& body = infer::Guarded(ctx, "", [&]() -> const Graph& { return ctx.attrs().GetGraph("body"); });
  if (body.inputs().size() != ctx.num_inputs() || body.outputs().size() != ctx.num_outputs()) {
    ctx.Fail(fmt::format("body has {} inputs and {} outputs; this node needs {} inputs and {} outputs",
                         body.inputs().size(), body.outputs().size(), ctx.num_inputs(), ctx.num_outputs()));
  }
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, DataType::kSequence, kUnknownLength);
}

void InferOptional(InferContext& ctx) { ctx.set_output(0, DataType::kOptional, kUnknownLength); }

void InferOptionalHasElement(InferContext& ctx) { ctx.set_output(0, DataType::kBool, Shape{}); }

}  // namespace

std::span<const std::string_view> SequenceOpTypes() { return kSequenceOpTypes; }

bool IsSequenceOpType(std::string_view op_type) {
  return std::find(kSequenceOpTypes.begin(), kSequenceOpTypes.end(), op_type) != kSequenceOpTypes.end();
}

void RegisterSequenceOps(OpRegistry& registry) {
  const std::vector<DataType> positions{DataType::kInt32, DataType::kInt64};
  registry.Register(OpSchema("SequenceEmpty")
                        .Output("output_sequence", "")
                        .Attr("dtype", DataType::kFloat)
                        .Infer(InferSequence)
                        .Doc("An empty sequence of tensors of dtype."));
  registry.Register(OpSchema("SequenceConstruct")
                        .DynamicInput("inputs", "")
                        .Output("output_sequence", "")
                        .Infer(InferSequenceConstruct)
                        .Doc("The sequence of the inputs, tensors of one dtype, in order."));
  registry.Register(OpSchema("SequenceInsert")
                        .Input("input_sequence", "")
                        .Input("tensor", "")
                        .OptionalInput("position", "I")
                        .Output("output_sequence", "")
                        .TypeConstraint("I", positions)
                        .Infer(InferSequenceEdit)
                        .Doc("The sequence with tensor inserted before position (negative counts from the end; "
                             "absent: at the end)."));
  registry.Register(OpSchema("SequenceErase")
                        .Input("input_sequence", "")
                        .OptionalInput("position", "I")
                        .Output("output_sequence", "")
                        .TypeConstraint("I", positions)
                        .Infer(InferSequenceEdit)
                        .Doc("The sequence without the element at position (absent: the last)."));
  registry.Register(OpSchema("SequenceAt")
                        .Input("input_sequence", "")
                        .Input("position", "I")
                        .Output("tensor", "")
                        .RequiredAttr("dtype", AttrType::kDataType)
                        .Attr("element_shape", std::vector<int64_t>{})
                        .TypeConstraint("I", positions)
                        .Infer(InferSequenceAt)
                        .Doc("The element at position (negative counts from the end); dtype is the elements', "
                             "element_shape their dims as the model declares them (-1 unknown; empty: undeclared)."));
  registry.Register(OpSchema("SequenceLength")
                        .Input("input_sequence", "")
                        .Output("length", "")
                        .Infer(InferSequenceLength)
                        .Doc("The number of elements, an int64 scalar."));
  registry.Register(OpSchema("SplitToSequence")
                        .Input("input", "")
                        .OptionalInput("split", "I")
                        .Output("output_sequence", "")
                        .Attr("axis", int64_t{0})
                        .Attr("keepdims", int64_t{1})
                        .TypeConstraint("I", positions)
                        .Infer(InferSplitToSequence)
                        .Doc("input split along axis: into pieces of the sizes split lists, of split's one size "
                             "(the last may be shorter), or of size 1 without split (axis removed unless keepdims)."));
  registry.Register(OpSchema("ConcatFromSequence")
                        .Input("input_sequence", "")
                        .Output("concat_result", "")
                        .RequiredAttr("axis", AttrType::kInt)
                        .Attr("new_axis", int64_t{0})
                        .RequiredAttr("dtype", AttrType::kDataType)
                        .Attr("element_shape", std::vector<int64_t>{})
                        .Infer(InferConcatFromSequence)
                        .Doc("The elements concatenated along axis, or stacked along a new axis with new_axis 1; "
                             "element_shape as SequenceAt's."));
  registry.Register(OpSchema("SequenceMap")
                        .Input("input_sequence", "")
                        .DynamicInput("additional_inputs", "", 0)
                        .DynamicOutput("out_sequence", "")
                        .RequiredAttr("body", AttrType::kGraph)
                        .Attr("num_implicit_inputs", int64_t{0})
                        .Infer(InferSequenceMap)
                        .Doc("Runs body once per element of input_sequence, with the same element of every "
                             "additional sequence and every additional tensor whole; each output is a sequence. The "
                             "last num_implicit_inputs inputs are values the body reads from outside, passed whole."));
  registry.Register(OpSchema("Optional")
                        .OptionalInput("input", "")
                        .Output("output", "")
                        .RequiredAttr("dtype", AttrType::kDataType)
                        .Infer(InferOptional)
                        .Doc("An optional holding input, or none without it; dtype is the element's."));
  registry.Register(OpSchema("OptionalHasElement")
                        .OptionalInput("input", "")
                        .Output("output", "")
                        .Infer(InferOptionalHasElement)
                        .Doc("Whether input holds an element (a tensor or sequence does; an absent input not)."));
  registry.Register(OpSchema("OptionalGetElement")
                        .Input("input", "")
                        .Output("output", "")
                        .RequiredAttr("dtype", AttrType::kDataType)
                        .Infer(InferElement)
                        .Doc("The element of an optional (failing on none), or input itself when not an optional."));
}

}  // namespace ge

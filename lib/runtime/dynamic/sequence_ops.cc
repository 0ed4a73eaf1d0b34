#include "runtime/dynamic/sequence_ops.h"

#include <cstring>
#include <functional>

#include <fmt/core.h>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "graph/axis_view.h"
#include "graph/sequence_op_types.h"
#include "graph/shape_inference_utils.h"

namespace ge::runtime {
namespace {

// What one op does to its inputs; errors are prefixed with the node by SequenceOp.
using Body = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

class SequenceOp final : public ControlFlowOp {
 public:
  SequenceOp(std::string name, Body body) : name_(std::move(name)), body_(std::move(body)) {}

  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const override {
    try {
      return body_(inputs);
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: {}", name_, e.what()));
    }
  }

 private:
  std::string name_;
  Body body_;
};

[[noreturn]] void Fail(const std::string& message) { throw Error(ErrorCode::kInvalidArgument, message); }

const Tensor& Container(const std::vector<Tensor>& inputs, size_t index, DataType kind) {
  if (index >= inputs.size() || inputs[index].dtype() != kind) {
    Fail(fmt::format("input {} must be a {}, got {}", index, DataTypeName(kind),
                     index < inputs.size() ? DataTypeName(inputs[index].dtype()) : "nothing"));
  }
  return inputs[index];
}

// A position input in [-length, last] (negative counts from the end), or
// `absent` when the input is not given.
int64_t Position(const std::vector<Tensor>& inputs, size_t index, int64_t length, int64_t last, int64_t absent) {
  if (index >= inputs.size() || inputs[index].empty()) return absent;
  const Tensor& position = inputs[index];
  if (position.num_elements() != 1 || !IsInteger(position.dtype())) {
    Fail(fmt::format("position must be one integer, got {} {}", DataTypeName(position.dtype()),
                     position.shape().ToString()));
  }
  const int64_t value = position.ToInt64Vector()[0];
  if (value < -length || value > last) {
    Fail(fmt::format("position {} is outside [{}, {}] for a sequence of {} elements", value, -length, last, length));
  }
  return value < 0 ? value + length : value;
}

std::vector<Tensor> One(Tensor tensor) { return {std::move(tensor)}; }

Tensor Scalar(DataType dtype, int64_t value) {
  if (dtype == DataType::kBool) return Tensor::FromVector(dtype, Shape{}, std::vector<uint8_t>{value != 0});
  return Tensor::FromVector(dtype, Shape{}, std::vector<int64_t>{value});
}

// `length` steps of `tensor` along `axis` from `begin`, as a tensor of its own.
Tensor Slice(const Tensor& tensor, size_t axis, int64_t begin, int64_t length, bool keep_axis) {
  std::vector<int64_t> dims = tensor.shape().dims();
  const AxisView view = ViewAround(dims, axis);
  dims[axis] = length;
  if (!keep_axis) dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(axis));
  Tensor slice(tensor.dtype(), Shape(std::move(dims)));
  const size_t step = static_cast<size_t>(view.inner) * DataTypeSize(tensor.dtype());
  const auto* source = static_cast<const std::byte*>(tensor.data());
  auto* target = static_cast<std::byte*>(slice.data());
  for (int64_t o = 0; o < view.outer; ++o) {
    std::memcpy(target + o * length * step, source + (o * view.length + begin) * step, length * step);
  }
  return slice;
}

std::vector<Tensor> SplitToSequence(int64_t axis_attr, bool keepdims, const std::vector<Tensor>& inputs) {
  const Tensor& input = inputs.at(0);
  if (input.is_container() || input.shape().rank() == 0) {
    Fail(fmt::format("input must be a tensor of rank 1 or more, got {} {}", DataTypeName(input.dtype()),
                     input.shape().ToString()));
  }
  const size_t axis = static_cast<size_t>(NormalizeAxis(axis_attr, input.shape().rank()));
  const int64_t dim = input.shape().dim(axis);
  std::vector<int64_t> sizes;
  const bool split_given = inputs.size() > 1 && !inputs[1].empty();
  if (!split_given) {
    sizes.assign(static_cast<size_t>(dim), 1);
  } else if (inputs[1].shape().rank() == 0) {
    const int64_t chunk = inputs[1].ToInt64Vector()[0];
    if (chunk <= 0) Fail(fmt::format("split is {}; a chunk size must be positive", chunk));
    for (int64_t begin = 0; begin < dim; begin += chunk) sizes.push_back(std::min(chunk, dim - begin));
  } else {
    sizes = inputs[1].ToInt64Vector();
    int64_t total = 0;
    for (int64_t size : sizes) {
      if (size < 0) Fail(fmt::format("split holds the negative size {}", size));
      total += size;
    }
    if (total != dim) Fail(fmt::format("split sums to {} but axis {} has {} elements", total, axis, dim));
  }
  // keepdims applies only without split: each piece is then one step, its axis removed.
  const bool keep_axis = split_given || keepdims;
  std::vector<Tensor> pieces;
  int64_t begin = 0;
  for (int64_t size : sizes) {
    pieces.push_back(Slice(input, axis, begin, size, keep_axis));
    begin += size;
  }
  return One(Tensor::Sequence(input.dtype(), std::move(pieces)));
}

std::vector<Tensor> ConcatFromSequence(int64_t axis_attr, bool new_axis, const std::vector<Tensor>& inputs) {
  const Tensor& sequence = Container(inputs, 0, DataType::kSequence);
  const std::vector<Tensor>& elements = sequence.elements();
  if (elements.empty()) Fail("the sequence is empty: there is nothing to concatenate");
  const Shape& first = elements[0].shape();
  const size_t rank = first.rank() + (new_axis ? 1 : 0);
  const size_t axis = static_cast<size_t>(NormalizeAxis(axis_attr, rank));
  // Each element seen with the axis in place (of length 1 when stacking).
  std::vector<int64_t> dims = first.dims();
  if (new_axis) dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(axis), 1);
  int64_t total = 0;
  std::vector<int64_t> lengths;
  for (size_t i = 0; i < elements.size(); ++i) {
    std::vector<int64_t> element = elements[i].shape().dims();
    if (new_axis) element.insert(element.begin() + static_cast<std::ptrdiff_t>(axis), 1);
    bool fits = element.size() == dims.size() && elements[i].dtype() == elements[0].dtype();
    for (size_t d = 0; fits && d < dims.size(); ++d) fits = d == axis || element[d] == dims[d];
    if (!fits) {
      Fail(fmt::format("element {} is {} {}, which does not concatenate with element 0 ({} {}) along axis {}", i,
                       DataTypeName(elements[i].dtype()), elements[i].shape().ToString(),
                       DataTypeName(elements[0].dtype()), first.ToString(), axis));
    }
    lengths.push_back(element[axis]);
    total += element[axis];
  }
  const AxisView view = ViewAround(dims, axis);
  dims[axis] = total;
  Tensor result(elements[0].dtype(), Shape(dims));
  const size_t step = static_cast<size_t>(view.inner) * DataTypeSize(result.dtype());
  auto* target = static_cast<std::byte*>(result.data());
  int64_t offset = 0;
  for (size_t i = 0; i < elements.size(); ++i) {
    const auto* source = static_cast<const std::byte*>(elements[i].data());
    for (int64_t o = 0; o < view.outer; ++o) {
      std::memcpy(target + (o * total + offset) * step, source + o * lengths[i] * step, lengths[i] * step);
    }
    offset += lengths[i];
  }
  return One(std::move(result));
}

// Inputs: the sequence, then sequences taken element by element or tensors
// taken whole, then the implicit inputs (whole).
class SequenceMapOp final : public ControlFlowOp {
 public:
  SequenceMapOp(const Node& node, const Options& options)
      : name_(node.Describe()), implicit_(static_cast<size_t>(node.attrs().GetInt("num_implicit_inputs"))) {
    body_ = CompileSubgraph(node, "body", options, FirstImplicitInput(node), 0);
  }

  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const override {
    const Tensor& sequence = inputs.at(0);
    if (sequence.dtype() != DataType::kSequence) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: input 0 must be a sequence, got {}", name_, DataTypeName(sequence.dtype())));
    }
    const size_t length = sequence.elements().size();
    const size_t mapped = inputs.size() - implicit_;
    for (size_t k = 1; k < mapped; ++k) {
      if (inputs[k].dtype() == DataType::kSequence && inputs[k].elements().size() != length) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: input {} is a sequence of {} elements but input 0 has {}", name_, k,
                                inputs[k].elements().size(), length));
      }
    }
    std::vector<std::vector<Tensor>> collected(body_->outputs().size());
    std::vector<Tensor> body_inputs(inputs.size());
    for (size_t i = 0; i < length; ++i) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        const bool by_element = k < mapped && inputs[k].dtype() == DataType::kSequence;
        body_inputs[k] = by_element ? inputs[k].elements()[i] : inputs[k];
      }
      std::vector<Tensor> outputs;
      try {
        outputs = body_->Run(body_inputs);
      } catch (const Error& e) {
        throw Error(e.code(), fmt::format("{}: body, element {}: {}", name_, i, e.what()));
      }
      for (size_t j = 0; j < outputs.size(); ++j) collected[j].push_back(OwnedValue(outputs[j]));
    }
    std::vector<Tensor> results;
    for (size_t j = 0; j < collected.size(); ++j) {
      results.push_back(Tensor::Sequence(body_->outputs()[j].dtype, std::move(collected[j])));
    }
    return results;
  }

 private:
  std::string name_;
  size_t implicit_;
  std::shared_ptr<const CompiledModel> body_;
};

Body BodyOf(const Node& node) {
  const std::string& op = node.op_type();
  const DataType dtype = node.attrs().Has("dtype") ? node.attrs().GetDataType("dtype") : DataType::kUndefined;
  if (op == "Identity") return [](const std::vector<Tensor>& inputs) { return One(inputs.at(0)); };
  if (op == "SequenceEmpty") return [dtype](const std::vector<Tensor>&) { return One(Tensor::Sequence(dtype, {})); };
  if (op == "SequenceConstruct") {
    return [](const std::vector<Tensor>& inputs) {
      std::vector<Tensor> elements;
      for (const Tensor& input : inputs) elements.push_back(OwnedValue(input));
      return One(Tensor::Sequence(inputs.at(0).dtype(), std::move(elements)));
    };
  }
  if (op == "SequenceInsert") {
    return [](const std::vector<Tensor>& inputs) {
      const Tensor& sequence = Container(inputs, 0, DataType::kSequence);
      std::vector<Tensor> elements = sequence.elements();
      const int64_t length = static_cast<int64_t>(elements.size());
      const int64_t at = Position(inputs, 2, length, length, length);
      elements.insert(elements.begin() + at, OwnedValue(inputs.at(1)));
      return One(Tensor::Sequence(sequence.element_dtype(), std::move(elements)));
    };
  }
  if (op == "SequenceErase") {
    return [](const std::vector<Tensor>& inputs) {
      const Tensor& sequence = Container(inputs, 0, DataType::kSequence);
      std::vector<Tensor> elements = sequence.elements();
      const int64_t length = static_cast<int64_t>(elements.size());
      if (length == 0) Fail("the sequence is empty: there is nothing to erase");
      elements.erase(elements.begin() + Position(inputs, 1, length, length - 1, length - 1));
      return One(Tensor::Sequence(sequence.element_dtype(), std::move(elements)));
    };
  }
  if (op == "SequenceAt") {
    return [](const std::vector<Tensor>& inputs) {
      const std::vector<Tensor>& elements = Container(inputs, 0, DataType::kSequence).elements();
      const int64_t length = static_cast<int64_t>(elements.size());
      if (!inputs.at(1).empty() && length == 0) Fail("the sequence is empty: there is no element to take");
      return One(elements[static_cast<size_t>(Position(inputs, 1, length, length - 1, 0))]);
    };
  }
  if (op == "SequenceLength") {
    return [](const std::vector<Tensor>& inputs) {
      const auto length = static_cast<int64_t>(Container(inputs, 0, DataType::kSequence).elements().size());
      return One(Scalar(DataType::kInt64, length));
    };
  }
  if (op == "SplitToSequence") {
    return [axis = node.attrs().GetInt("axis"), keepdims = node.attrs().GetInt("keepdims") != 0](
               const std::vector<Tensor>& inputs) { return SplitToSequence(axis, keepdims, inputs); };
  }
  if (op == "ConcatFromSequence") {
    return [axis = node.attrs().GetInt("axis"), new_axis = node.attrs().GetInt("new_axis") != 0](
               const std::vector<Tensor>& inputs) { return ConcatFromSequence(axis, new_axis, inputs); };
  }
  if (op == "Optional") {
    return [dtype](const std::vector<Tensor>& inputs) {
      const bool given = !inputs.empty() && !inputs[0].empty();
      return One(Tensor::Optional(dtype, given ? std::optional<Tensor>(OwnedValue(inputs[0])) : std::nullopt));
    };
  }
  if (op == "OptionalHasElement") {
    return [](const std::vector<Tensor>& inputs) {
      const bool given = !inputs.empty() && !inputs[0].empty();
      const bool has = given && (inputs[0].dtype() != DataType::kOptional || !inputs[0].elements().empty());
      return One(Scalar(DataType::kBool, has ? 1 : 0));
    };
  }
  if (op == "OptionalGetElement") {
    return [](const std::vector<Tensor>& inputs) {
      const Tensor& input = inputs.at(0);
      if (input.dtype() != DataType::kOptional) return One(input);
      if (input.elements().empty()) Fail("the optional holds no element");
      return One(input.elements()[0]);
    };
  }
  throw Error(ErrorCode::kInternal, fmt::format("{}: not a sequence op", node.Describe()));
}

}  // namespace

Tensor OwnedValue(const Tensor& value) {
  if (!value.is_container()) return value.owns_data() ? value : value.Clone();
  std::vector<Tensor> elements;
  bool changed = false;
  for (const Tensor& element : value.elements()) {
    elements.push_back(OwnedValue(element));
    changed = changed || elements.back().data() != element.data();
  }
  if (!changed) return value;
  if (value.dtype() == DataType::kSequence) return Tensor::Sequence(value.element_dtype(), std::move(elements));
  return Tensor::Optional(value.element_dtype(), std::move(elements.front()));
}

bool IsSequenceOp(const Node& node) {
  if (node.op_type() == "Identity") return node.input(0) != nullptr && IsContainer(node.input(0)->dtype());
  return IsSequenceOpType(node.op_type());
}

std::unique_ptr<ControlFlowOp> CreateSequenceOp(const Node& node, const Options& options) {
  if (node.op_type() == "SequenceMap") return std::make_unique<SequenceMapOp>(node, options);
  return std::make_unique<SequenceOp>(node.Describe(), BodyOf(node));
}

}  // namespace ge::runtime

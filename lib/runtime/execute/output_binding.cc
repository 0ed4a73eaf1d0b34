#include "runtime/execute/output_binding.h"

#include <cstring>
#include <functional>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/shape_accepts.h"

namespace ge::runtime {
namespace {

bool Overlap(const Tensor& a, const Tensor& b) {
  if (a.nbytes() == 0 || b.nbytes() == 0) return false;
  const auto* a_begin = static_cast<const std::byte*>(a.data());
  const auto* b_begin = static_cast<const std::byte*>(b.data());
  // std::less gives a total order over pointers into unrelated buffers.
  return std::less<const std::byte*>()(a_begin, b_begin + b.nbytes()) &&
         std::less<const std::byte*>()(b_begin, a_begin + a.nbytes());
}

}  // namespace

void CheckOutputBuffers(const std::vector<TensorInfo>& outputs, const std::vector<Tensor>& buffers) {
  if (buffers.size() != outputs.size()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("{} output buffers for a model with {} outputs",
                                                         buffers.size(), outputs.size()));
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Tensor& buffer = buffers[i];
    if (buffer.empty()) continue;
    const TensorInfo& output = outputs[i];
    if (buffer.dtype() != output.dtype || !ShapeAccepts(output.shape, buffer.shape())) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("output '{}' (#{}) is {} {}, but the bound buffer is {} {}", output.name, i,
                              DataTypeName(output.dtype), output.shape.ToString(), DataTypeName(buffer.dtype()),
                              buffer.shape().ToString()));
    }
    if (buffer.data() == nullptr && buffer.nbytes() > 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("the buffer bound to output '{}' (#{}) has no data", output.name, i));
    }
    for (size_t j = 0; j < i; ++j) {
      if (!buffers[j].empty() && Overlap(buffers[j], buffer)) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("outputs '{}' (#{}) and '{}' (#{}) are bound to overlapping buffers", outputs[j].name,
                                j, output.name, i));
      }
    }
  }
}

std::vector<Tensor> DirectOutputBuffers(const std::vector<Tensor>& buffers, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> direct = buffers;
  for (Tensor& buffer : direct) {
    for (const Tensor& input : inputs) {
      if (Overlap(buffer, input)) {
        buffer = Tensor();
        break;
      }
    }
  }
  return direct;
}

void CheckBoundShape(const TensorInfo& output, const Tensor& buffer, DataType dtype, const Shape& shape) {
  if (buffer.dtype() == dtype && buffer.shape() == shape) return;
  throw Error(ErrorCode::kInvalidArgument,
              fmt::format("output '{}' is {} {} in this run, but the bound buffer is {} {}", output.name,
                          DataTypeName(dtype), shape.ToString(), DataTypeName(buffer.dtype()),
                          buffer.shape().ToString()));
}

void DeliverIntoBuffers(const std::vector<TensorInfo>& outputs, std::vector<Tensor> buffers,
                        std::vector<Tensor>& results) {
  auto in_place = [&](size_t i) {
    return buffers[i].empty() || (results[i].data() == buffers[i].data() && results[i].shape() == buffers[i].shape());
  };
  // Every buffer is checked before any is written.
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!in_place(i)) CheckBoundShape(outputs[i], buffers[i], results[i].dtype(), results[i].shape());
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (in_place(i)) continue;
    if (buffers[i].nbytes() > 0) std::memcpy(buffers[i].data(), results[i].data(), buffers[i].nbytes());
    results[i] = buffers[i];
  }
}

}  // namespace ge::runtime

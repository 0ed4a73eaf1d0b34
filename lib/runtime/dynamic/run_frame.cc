#include "runtime/dynamic/run_frame.h"

#include "graph/byte_size.h"

namespace ge::runtime {

void RunFrame::Reset() {
  for (FrameValue& value : values) {
    if (value.buffer != nullptr) pool.Give(value.buffer, value.buffer_bytes);
    value.buffer = nullptr;
    value.buffer_users = 0;
    value.owner = -1;
    value.data = nullptr;
    value.tensor = Tensor();
    value.fresh = false;
  }
}

void RunFrame::SetTensor(int id, Tensor tensor, bool fresh) {
  FrameValue& value = values[id];
  value.dtype = tensor.dtype();
  value.shape = tensor.shape();
  value.data = tensor.data();
  value.owner = -1;
  value.tensor = std::move(tensor);
  value.fresh = fresh;
}

void RunFrame::SetView(int id, int viewed) {
  FrameValue& value = values[id];
  const FrameValue& source = values[viewed];
  value.data = source.data;
  value.owner = source.owner;
  value.fresh = false;
  if (value.owner >= 0) {
    ++values[value.owner].buffer_users;
    value.tensor = Tensor();
  } else if (!source.tensor.empty()) {
    // Bytes a tensor holds (a control-flow result) stay alive while the view does.
    value.tensor = source.tensor.Reshaped(value.shape);
  }
}

void RunFrame::SetPooled(int id) {
  FrameValue& value = values[id];
  // The size cap was checked when the value was inferred, so the size fits.
  const size_t bytes = static_cast<size_t>(CheckedByteSize(value.shape, value.dtype).value_or(0));
  value.buffer = pool.Take(bytes);
  value.buffer_bytes = bytes;
  value.buffer_users = 1;
  value.data = value.buffer;
  value.owner = id;
  value.tensor = Tensor();
  value.fresh = false;
}

void RunFrame::Release(int id) {
  FrameValue& value = values[id];
  value.tensor = Tensor();
  value.fresh = false;
  value.data = nullptr;
  const int owner = value.owner;
  value.owner = -1;
  if (owner < 0) return;
  FrameValue& holder = values[owner];
  if (--holder.buffer_users > 0) return;
  pool.Give(holder.buffer, holder.buffer_bytes);
  holder.buffer = nullptr;
}

const Tensor& RunFrame::TensorOf(int id) {
  FrameValue& value = values[id];
  if (value.tensor.empty()) value.tensor = Tensor::Borrow(value.dtype, value.shape, value.data);
  return value.tensor;
}

size_t RunFrame::LiveBytes() const {
  size_t bytes = 0;
  for (const FrameValue& value : values) bytes += value.buffer != nullptr ? value.buffer_bytes : 0;
  return bytes;
}

FramePool::Lease FramePool::Acquire() {
  std::unique_ptr<RunFrame> frame;
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      frame = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (!frame) frame = std::make_unique<RunFrame>(values_, steps_);
  return Lease(*this, std::move(frame));
}

uint64_t FramePool::buffer_allocations() const {
  std::lock_guard lock(mutex_);
  return buffer_allocations_;
}

void FramePool::Return(std::unique_ptr<RunFrame> frame) {
  std::lock_guard lock(mutex_);
  buffer_allocations_ += frame->pool.allocations() - frame->counted_allocations;
  frame->counted_allocations = frame->pool.allocations();
  free_.push_back(std::move(frame));
}

}  // namespace ge::runtime

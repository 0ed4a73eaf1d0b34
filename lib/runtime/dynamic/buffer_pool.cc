#include "runtime/dynamic/buffer_pool.h"

#include <bit>
#include <cstdlib>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::runtime {
namespace {

// Up to kLinearBytes, classes are multiples of the alignment; above it, each
// octave (2^k, 2^(k+1)] splits into kStepsPerOctave classes of equal width,
// which are multiples of the alignment too (aligned_alloc needs that).
constexpr size_t kLinearBytes = 256;
constexpr size_t kLinearClasses = kLinearBytes / BufferPool::kAlignment;
constexpr size_t kStepsPerOctave = 4;
constexpr size_t kFirstOctave = 8;  // log2(kLinearBytes)
static_assert(size_t{1} << kFirstOctave == kLinearBytes);

}  // namespace

size_t BufferPool::ClassOf(size_t bytes) {
  if (bytes <= kLinearBytes) return bytes == 0 ? 0 : (bytes - 1) / kAlignment;
  const size_t octave = std::bit_width(bytes - 1) - 1;  // 2^octave < bytes <= 2^(octave + 1)
  const size_t base = size_t{1} << octave;
  const size_t step = base / kStepsPerOctave;
  const size_t within = (bytes - base + step - 1) / step;  // 1..kStepsPerOctave
  return kLinearClasses + (octave - kFirstOctave) * kStepsPerOctave + (within - 1);
}

size_t BufferPool::ClassBytes(size_t size_class) {
  if (size_class < kLinearClasses) return (size_class + 1) * kAlignment;
  const size_t octave = kFirstOctave + (size_class - kLinearClasses) / kStepsPerOctave;
  const size_t within = (size_class - kLinearClasses) % kStepsPerOctave + 1;
  const size_t base = size_t{1} << octave;
  return base + within * (base / kStepsPerOctave);
}

BufferPool::~BufferPool() {
  for (std::byte* buffer : all_) std::free(buffer);
}

std::byte* BufferPool::Take(size_t bytes) {
  const size_t size_class = ClassOf(bytes);
  if (size_class < classes_.size() && !classes_[size_class].free.empty()) {
    std::byte* buffer = classes_[size_class].free.back();
    classes_[size_class].free.pop_back();
    return buffer;
  }
  // Bookkeeping first, so that nothing can throw once the buffer exists.
  if (size_class >= classes_.size()) classes_.resize(size_class + 1);
  SizeClass& held = classes_[size_class];
  held.free.reserve(held.buffers + 1);  // so that Give never allocates
  all_.reserve(all_.size() + 1);
  const size_t class_bytes = ClassBytes(size_class);
  auto* buffer = static_cast<std::byte*>(std::aligned_alloc(kAlignment, class_bytes));
  if (buffer == nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("cannot allocate {} bytes for a tensor of a dynamic model: out of memory", class_bytes));
  }
  ++held.buffers;
  all_.push_back(buffer);
  ++allocations_;
  held_bytes_ += class_bytes;
  return buffer;
}

void BufferPool::Give(std::byte* buffer, size_t bytes) { classes_[ClassOf(bytes)].free.push_back(buffer); }

}  // namespace ge::runtime

// Constant inputs packed by an earlier build (stored in a .gem file), offered
// to the kernels built on this thread: a kernel that wants the same layout of
// the same constant uses the packed bytes in place instead of re-laying them
// out, so loading a model does not redo its weight reorders. A kernel that
// wants another layout (another CPU, another library version) packs as usual.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ge::device {

class PrepackedWeights {
 public:
  // `packed` (`bytes` long) is `original` in `layout`; both must outlive the kernels built with it.
  void Offer(const void* original, std::string layout, const void* packed, size_t bytes);
  // The packed copy of `original` in exactly `layout` and `bytes`, or nullptr.
  const void* Find(const void* original, std::string_view layout, size_t bytes) const;
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    std::string layout;
    const void* packed;
    size_t bytes;
  };
  std::unordered_multimap<const void*, Entry> entries_;
};

// Offers `weights` to the kernels built on this thread while it lives.
class ScopedPrepackedWeights {
 public:
  explicit ScopedPrepackedWeights(const PrepackedWeights& weights);
  ~ScopedPrepackedWeights();
  ScopedPrepackedWeights(const ScopedPrepackedWeights&) = delete;
  ScopedPrepackedWeights& operator=(const ScopedPrepackedWeights&) = delete;

 private:
  const PrepackedWeights* previous_;
};

// What this thread offers now, or nullptr.
const PrepackedWeights* OfferedPrepackedWeights();

}  // namespace ge::device

// Constant inputs packed by an earlier build (stored in a .gem file, or packed
// when a dynamic model was compiled), offered to the kernels built on this
// thread: a kernel that wants the same layout of the same constant uses the
// packed bytes in place instead of re-laying them out, so loading a model
// does not redo its weight reorders. A kernel that wants another layout
// (another CPU, another library version) packs as usual.
#pragma once

#include <cstddef>
#include <memory>
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

  // `data` is a constant kept only in `layout` (`bytes` long), its plain
  // bytes freed (ge.exec.releasePackedConstants on a dynamic model): a kernel
  // wanting that layout uses it in place, one wanting another reorders from it.
  void OfferStored(const void* data, std::string layout, size_t bytes);
  // The layout `data` is stored in, when it was offered so, else nullptr.
  const std::string* StoredLayout(const void* data) const;

 private:
  struct Entry {
    std::string layout;
    const void* packed;
    size_t bytes;
  };
  std::unordered_multimap<const void*, Entry> entries_;
};

// Offers `weights` to the kernels built on this thread while it lives. Given
// shared, it is also what a model compiled meanwhile keeps offering to the
// kernels it builds later (runtime/compile/packed_weights.h).
class ScopedPrepackedWeights {
 public:
  explicit ScopedPrepackedWeights(const PrepackedWeights& weights);
  explicit ScopedPrepackedWeights(std::shared_ptr<const PrepackedWeights> weights);
  ~ScopedPrepackedWeights();
  ScopedPrepackedWeights(const ScopedPrepackedWeights&) = delete;
  ScopedPrepackedWeights& operator=(const ScopedPrepackedWeights&) = delete;

 private:
  const PrepackedWeights* previous_;
  std::shared_ptr<const PrepackedWeights> previous_shared_;
};

// What this thread offers now, or nullptr.
const PrepackedWeights* OfferedPrepackedWeights();
// The same when it was offered shared, else null.
std::shared_ptr<const PrepackedWeights> SharedOfferedPrepackedWeights();

}  // namespace ge::device

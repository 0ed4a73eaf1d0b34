// The kernels of a dynamic model, by the shapes they were built for.
//
// A dynamic model builds a node's kernel once its run's shapes are known;
// building one can be costly (oneDNN creates primitives and may pack
// weights), so runs at shapes seen before reuse it. The cache is bounded:
// past its capacity the oldest entry goes (first in, first out), and an entry
// in use by a run stays alive until that run is done with it.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "device/kernel.h"

namespace ge::runtime {

// A kernel together with the node it was built from: the node alone in a
// graph of its own, with the run's concrete shapes (kernels may keep what
// they read from it).
struct ShapedKernel {
  std::unique_ptr<Graph> graph;
  const Node* node = nullptr;
  std::unique_ptr<device::Kernel> kernel;
};

class KernelCache {
 public:
  // The step's index followed by the dtypes and dims of its inputs and outputs.
  using Key = std::vector<int64_t>;

  explicit KernelCache(size_t capacity) : capacity_(capacity) {}

  // nullptr when absent.
  std::shared_ptr<const ShapedKernel> Find(const Key& key) const;
  // Keeps the entry already there when two runs built the same kernel at once.
  std::shared_ptr<const ShapedKernel> Insert(const Key& key, std::shared_ptr<const ShapedKernel> kernel);
  size_t size() const;

  // FNV-1a over the key's words (also hashes PlanCache's shape signatures).
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };

 private:

  size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<Key, std::shared_ptr<const ShapedKernel>, KeyHash> entries_;
  std::deque<Key> order_;  // insertion order, oldest first
};

}  // namespace ge::runtime

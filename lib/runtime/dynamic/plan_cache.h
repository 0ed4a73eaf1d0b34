// The static plans of a dynamic model, one per input-shape signature.
//
// When every shape of a dynamic model follows from its input shapes, a run
// at new input shapes compiles the model for those shapes as a static model
// (passes, kernels, storage and memory plan) and later runs at the same shapes
// reuse that plan. The cache is least-recently-used with a byte cap
// (ge.exec.dynamicPlanCacheBytes): a plan is charged for its arenas (at least
// one; one more per concurrent run that needed it), the constants it folded
// for its shapes, and a per-step estimate of its kernels and graph. Past the
// cap the least recently used plans go; a run still using one keeps it alive
// until it is done. A plan larger than the cap serves its run and is dropped.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ge/compiled_model.h"
#include "runtime/dynamic/kernel_cache.h"

namespace ge::runtime {

class PlanCache {
 public:
  // The rank and dims of every input, in order.
  using Signature = std::vector<int64_t>;
  // What a plan is charged per step for its kernel and its node (a guess: a
  // kernel's own memory is not visible from here).
  static constexpr size_t kStepBytes = 4096;

  explicit PlanCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  // nullptr when absent; a hit makes the plan the most recently used.
  std::shared_ptr<const CompiledModel> Find(const Signature& signature);
  // Keeps the plan already there when two runs planned the same signature at
  // once, and returns the one to run. `own_bytes`: what the plan holds besides
  // its arenas and steps (constants folded for its shapes).
  std::shared_ptr<const CompiledModel> Insert(const Signature& signature, std::shared_ptr<const CompiledModel> plan,
                                              size_t own_bytes);
  // Charges the plan again after a run (a concurrent run may have made it
  // allocate another arena), evicting others if that crosses the cap.
  void Recharge(const Signature& signature);

  size_t capacity() const { return capacity_; }
  // For tests and reports.
  size_t bytes() const;
  size_t size() const;
  size_t hits() const;
  size_t misses() const;
  // The plan of `signature` (nullptr when absent), counted as neither hit nor use.
  std::shared_ptr<const CompiledModel> Peek(const Signature& signature) const;

 private:
  struct Entry {
    Signature signature;
    std::shared_ptr<const CompiledModel> plan;
    size_t own_bytes = 0;
    size_t charged = 0;
  };
  static size_t Charge(const Entry& entry);
  void EvictBeyondCapacity();  // under mutex_

  size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<Signature, std::list<Entry>::iterator, KernelCache::KeyHash> index_;
  size_t bytes_ = 0;
  size_t hits_ = 0;
  size_t misses_ = 0;
};

}  // namespace ge::runtime

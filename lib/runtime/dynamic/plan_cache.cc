#include "runtime/dynamic/plan_cache.h"

#include <algorithm>

#include "runtime/execution_plan.h"

namespace ge::runtime {

size_t PlanCache::Charge(const Entry& entry) {
  const CompiledModel::Impl& impl = entry.plan->impl();
  // A plan that runs the rest node by node around its static regions
  // (static_regions.h) has no arenas of its own; its nodes are charged as steps.
  if (impl.arenas == nullptr) return entry.own_bytes + impl.nodes.size() * kStepBytes;
  size_t arenas = std::max<size_t>(impl.arenas->allocated(), 1);
  return entry.own_bytes + arenas * impl.arenas->arena_bytes() + impl.steps.size() * kStepBytes;
}

std::shared_ptr<const CompiledModel> PlanCache::Find(const Signature& signature) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(signature);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  entries_.splice(entries_.begin(), entries_, it->second);
  return it->second->plan;
}

std::shared_ptr<const CompiledModel> PlanCache::Insert(const Signature& signature,
                                                       std::shared_ptr<const CompiledModel> plan, size_t own_bytes) {
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(signature); it != index_.end()) return it->second->plan;
  Entry entry{signature, plan, own_bytes, 0};
  entry.charged = Charge(entry);
  if (entry.charged > capacity_) return plan;
  entries_.push_front(std::move(entry));
  index_.emplace(signature, entries_.begin());
  bytes_ += entries_.front().charged;
  EvictBeyondCapacity();
  return plan;
}

void PlanCache::Recharge(const Signature& signature) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(signature);
  if (it == index_.end()) return;  // evicted meanwhile
  Entry& entry = *it->second;
  bytes_ -= entry.charged;
  entry.charged = Charge(entry);
  bytes_ += entry.charged;
  EvictBeyondCapacity();
}

void PlanCache::EvictBeyondCapacity() {
  while (bytes_ > capacity_ && !entries_.empty()) {
    bytes_ -= entries_.back().charged;
    index_.erase(entries_.back().signature);
    entries_.pop_back();
  }
}

std::shared_ptr<const CompiledModel> PlanCache::Peek(const Signature& signature) const {
  std::lock_guard lock(mutex_);
  auto it = index_.find(signature);
  return it == index_.end() ? nullptr : it->second->plan;
}

size_t PlanCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

size_t PlanCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

size_t PlanCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

size_t PlanCache::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

}  // namespace ge::runtime

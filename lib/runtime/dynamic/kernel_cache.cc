#include "runtime/dynamic/kernel_cache.h"

namespace ge::runtime {

size_t KernelCache::KeyHash::operator()(const Key& key) const {
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a over the 64-bit words
  for (int64_t word : key) {
    hash ^= static_cast<uint64_t>(word);
    hash *= 0x100000001b3ULL;
  }
  return static_cast<size_t>(hash);
}

std::shared_ptr<const ShapedKernel> KernelCache::Find(const Key& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  return it != entries_.end() ? it->second : nullptr;
}

std::shared_ptr<const ShapedKernel> KernelCache::Insert(const Key& key, std::shared_ptr<const ShapedKernel> kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = entries_.emplace(key, std::move(kernel));
  std::shared_ptr<const ShapedKernel> result = it->second;
  if (!inserted) return result;
  order_.push_back(key);
  if (entries_.size() > capacity_) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
  return result;
}

size_t KernelCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace ge::runtime

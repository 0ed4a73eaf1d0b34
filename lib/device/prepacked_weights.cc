#include "device/prepacked_weights.h"

namespace ge::device {
namespace {

thread_local const PrepackedWeights* offered = nullptr;
thread_local std::shared_ptr<const PrepackedWeights> offered_shared;

}  // namespace

void PrepackedWeights::Offer(const void* original, std::string layout, const void* packed, size_t bytes) {
  entries_.emplace(original, Entry{std::move(layout), packed, bytes});
}

const void* PrepackedWeights::Find(const void* original, std::string_view layout, size_t bytes) const {
  auto [begin, end] = entries_.equal_range(original);
  for (auto it = begin; it != end; ++it) {
    if (it->second.layout == layout && it->second.bytes == bytes) return it->second.packed;
  }
  return nullptr;
}

void PrepackedWeights::OfferStored(const void* data, std::string layout, size_t bytes) {
  Offer(data, std::move(layout), data, bytes);
}

const std::string* PrepackedWeights::StoredLayout(const void* data) const {
  // A constant stored packed is its own packed copy.
  auto [begin, end] = entries_.equal_range(data);
  for (auto it = begin; it != end; ++it) {
    if (it->second.packed == data) return &it->second.layout;
  }
  return nullptr;
}

ScopedPrepackedWeights::ScopedPrepackedWeights(const PrepackedWeights& weights)
    : previous_(offered), previous_shared_(std::move(offered_shared)) {
  offered = &weights;
  offered_shared = nullptr;
}

ScopedPrepackedWeights::ScopedPrepackedWeights(std::shared_ptr<const PrepackedWeights> weights)
    : previous_(offered), previous_shared_(std::move(offered_shared)) {
  offered = weights.get();
  offered_shared = std::move(weights);
}

ScopedPrepackedWeights::~ScopedPrepackedWeights() {
  offered = previous_;
  offered_shared = std::move(previous_shared_);
}

const PrepackedWeights* OfferedPrepackedWeights() { return offered; }

std::shared_ptr<const PrepackedWeights> SharedOfferedPrepackedWeights() { return offered_shared; }

}  // namespace ge::device

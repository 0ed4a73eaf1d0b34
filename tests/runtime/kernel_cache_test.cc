// The dynamic models' kernel cache: bounded, oldest out first, first insert wins.
#include <catch2/catch.hpp>

#include "runtime/dynamic/kernel_cache.h"

using ge::runtime::KernelCache;
using ge::runtime::ShapedKernel;

TEST_CASE("kernel cache: keeps at most its capacity, dropping the oldest", "[kernel_cache]") {
  KernelCache cache(2);
  auto a = std::make_shared<const ShapedKernel>();
  auto b = std::make_shared<const ShapedKernel>();
  auto c = std::make_shared<const ShapedKernel>();
  cache.Insert({0, 1}, a);
  cache.Insert({0, 2}, b);
  CHECK(cache.Find({0, 1}) == a);
  cache.Insert({1, 1}, c);
  CHECK(cache.size() == 2);
  CHECK(cache.Find({0, 1}) == nullptr);
  CHECK(cache.Find({0, 2}) == b);
  CHECK(cache.Find({1, 1}) == c);
  // An evicted entry a run still holds stays alive with it.
  CHECK(a.use_count() == 1);
}

TEST_CASE("kernel cache: the first of two equal inserts wins", "[kernel_cache]") {
  KernelCache cache(4);
  auto first = std::make_shared<const ShapedKernel>();
  auto second = std::make_shared<const ShapedKernel>();
  CHECK(cache.Insert({3, 7}, first) == first);
  CHECK(cache.Insert({3, 7}, second) == first);
  CHECK(cache.size() == 1);
}

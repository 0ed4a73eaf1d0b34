// What the planner tests share: constants with nothing special about them,
// and a planned layer by name.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ge/tensor.h"
#include "quant/layer_support.h"

namespace ge::test {

// A float32 (or float16) constant with distinct small values, so nothing about it is special.
inline Tensor Ramp(const Shape& shape, DataType dtype = DataType::kFloat) {
  std::vector<float> values(static_cast<size_t>(shape.NumElements()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.01f * static_cast<float>(i % 17) - 0.05f;
  if (dtype == DataType::kFloat) return Tensor::FromVector(dtype, shape, values);
  std::vector<_Float16> halves(values.begin(), values.end());
  return Tensor::FromVector(dtype, shape, halves);
}

// The planned layer named `name`; the test fails (REQUIRE) when there is none.
inline const quant::QuantLayer& Layer(const std::vector<quant::QuantLayer>& layers, const std::string& name) {
  auto it = std::find_if(layers.begin(), layers.end(), [&](const quant::QuantLayer& l) { return l.name == name; });
  REQUIRE(it != layers.end());
  return *it;
}

}  // namespace ge::test

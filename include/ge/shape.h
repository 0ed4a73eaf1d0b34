// Tensor shapes with possibly unknown dimensions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ge/export.h"

namespace ge {

class GE_API Shape {
 public:
  static constexpr int64_t kUnknownDim = -1;

  Shape() = default;  // a scalar (rank 0)
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  // A shape whose rank itself is unknown.
  static Shape UnknownRank();

  bool unknown_rank() const { return unknown_rank_; }
  size_t rank() const { return dims_.size(); }
  int64_t dim(size_t i) const { return dims_.at(i); }
  int64_t& dim(size_t i) { return dims_.at(i); }
  const std::vector<int64_t>& dims() const { return dims_; }

  // True when the rank and every dimension are known.
  bool IsStatic() const;
  // Product of the dims; -1 when not static. A scalar has one element.
  int64_t NumElements() const;
  // "[1,3,224,224]", unknown dims as "?", unknown rank as "[*]".
  std::string ToString() const;

  bool operator==(const Shape& other) const = default;

 private:
  std::vector<int64_t> dims_;
  bool unknown_rank_ = false;
};

}  // namespace ge

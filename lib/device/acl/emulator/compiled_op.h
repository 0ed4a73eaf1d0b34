// One op compiled for the emulator: a one-node ge graph (Data inputs with the
// descriptors' dtypes and shapes, the op with its attributes), shape-inferred
// through the op schema, and the ge CPU kernel created for it.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "device/kernel.h"
#include "ge/attr.h"
#include "ge/error.h"
#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge::acl_emulator {

// A tensor as a descriptor states it; absent: an omitted optional input;
// constant: the content aclSetTensorConst gave it.
struct TensorSpec {
  bool present = true;
  DataType dtype = DataType::kUndefined;
  Shape shape;
  std::optional<Tensor> constant;
  size_t bytes() const { return present ? static_cast<size_t>(shape.NumElements()) * DataTypeSize(dtype) : 0; }
};

// An output descriptor that disagrees with what the op computes.
class OutputMismatch : public Error {
 public:
  using Error::Error;
};

class CompiledOp {
 public:
  // Compiles the op for the described inputs and checks the described
  // outputs against shape inference. An output whose shape inference leaves
  // open (it depends on input values) takes the described shape when that
  // fits. Throws OutputMismatch, or ge::Error: kNotFound for an op type with
  // no schema or no CPU kernel, kUnsupported for a dtype or attribute
  // combination the kernels do not implement, kInvalidArgument for inputs or
  // attributes the schema refuses.
  static std::shared_ptr<const CompiledOp> Compile(const std::string& op_type, const std::vector<TensorSpec>& inputs,
                                                   const std::vector<TensorSpec>& outputs, const AttrMap& attrs);

  // Runs the kernel on host-addressable buffers (nullptr: an absent input;
  // constant inputs read the compiled constant); throws what the kernel throws.
  void Run(std::span<void* const> inputs, std::span<void* const> outputs) const;

 private:
  CompiledOp() = default;

  std::unique_ptr<Graph> graph_;
  Node* node_ = nullptr;
  std::unique_ptr<device::Kernel> kernel_;
};

}  // namespace ge::acl_emulator

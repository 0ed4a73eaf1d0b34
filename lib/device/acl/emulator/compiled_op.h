// One op compiled for the emulator: a one-node ge graph (Data inputs with the
// descriptors' dtypes and shapes, the op with its attributes), shape-inferred
// through the op schema, and the ge CPU kernel created for it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "device/kernel.h"
#include "ge/attr.h"
#include "ge/graph.h"

namespace ge::acl_emulator {

// A tensor as a descriptor states it; absent: an omitted optional input.
struct TensorSpec {
  bool present = true;
  DataType dtype = DataType::kUndefined;
  Shape shape;
  size_t bytes() const { return present ? static_cast<size_t>(shape.NumElements()) * DataTypeSize(dtype) : 0; }
};

class CompiledOp {
 public:
  // Throws ge::Error: kNotFound for an op type with no schema or no CPU
  // kernel, kUnsupported for a dtype or attribute combination the kernels do
  // not implement, kInvalidArgument for inputs or attributes the schema refuses.
  static std::shared_ptr<const CompiledOp> Compile(const std::string& op_type, const std::vector<TensorSpec>& inputs,
                                                   size_t num_outputs, const AttrMap& attrs);

  // The outputs as shape inference computed them.
  const std::vector<TensorSpec>& outputs() const { return outputs_; }
  // Runs the kernel on host-addressable buffers (nullptr: an absent input);
  // throws what the kernel throws.
  void Run(std::span<void* const> inputs, std::span<void* const> outputs) const;

 private:
  CompiledOp() = default;

  std::unique_ptr<Graph> graph_;
  Node* node_ = nullptr;
  std::unique_ptr<device::Kernel> kernel_;
  std::vector<TensorSpec> outputs_;
};

}  // namespace ge::acl_emulator

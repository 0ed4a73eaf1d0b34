// Kernels: the executable form of one node on one device.
//
// A kernel is created once at compile time from the node (attributes, input
// and output dtypes/shapes, constant inputs such as weights, the chosen impl
// mode) and may pre-pack weights then. Run() must be safe to call from several
// threads at once: everything per-run lives in the KernelContext.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge::device {

class Stream;

// A tensor as a kernel sees it: dtype, static shape, device pointer.
struct TensorView {
  DataType dtype = DataType::kUndefined;
  const Shape* shape = nullptr;
  void* data = nullptr;

  int64_t num_elements() const { return shape->NumElements(); }
  template <typename T>
  T* as() const { return static_cast<T*>(data); }
};

struct KernelContext {
  std::span<const TensorView> inputs;  // absent optional input: data == nullptr
  std::span<const TensorView> outputs;
  void* workspace = nullptr;           // WorkspaceBytes() bytes, 64-byte aligned
  Stream* stream = nullptr;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void Run(const KernelContext& ctx) const = 0;
  // Scratch memory one Run() needs; planned in the arena like activations.
  virtual size_t WorkspaceBytes() const { return 0; }
  // Output i shares input InPlaceInput(i)'s buffer (views: Reshape, Flatten,
  // Squeeze, Unsqueeze, Identity). -1: a buffer of its own.
  virtual int AliasedInput(size_t output_index) const {
    (void)output_index;
    return -1;
  }

  // Whether Run() takes every dim from ctx's views rather than from the
  // shapes the kernel was built for. A dynamic model then runs this one
  // kernel at any shapes of the same dtypes and ranks (with outputs not all
  // empty), instead of building one per shape.
  virtual bool TakesShapesAtRun() const { return false; }

  // A constant input the kernel re-laid-out at build time into memory of its
  // own. A .gem file stores these, and a load offers them back to the kernels
  // it builds (prepacked_weights.h), which then skip the work.
  struct PackedInput {
    size_t input = 0;    // the node's input index
    std::string layout;  // what the layout is; a later build must want exactly this one
    const void* data = nullptr;
    size_t bytes = 0;
  };
  virtual std::vector<PackedInput> PackedInputs() const { return {}; }
};

// Creates the kernel for a node whose attrs are normalized and whose values
// have inferred dtypes and static shapes. Throws ge::Error (kUnsupported)
// naming the node when a dtype or attribute combination is not implemented.
using KernelFactory = std::function<std::unique_ptr<Kernel>(const Node& node)>;

struct KernelDef {
  std::string op_type;
  std::vector<DataType> dtypes;         // dtypes of the first input this kernel accepts
  std::vector<std::string> impl_modes;  // implementation modes it offers; first is the default
  KernelFactory factory;
};

class KernelRegistry {
 public:
  void Register(KernelDef def);
  // The kernel for the op type and dtype (of the node's first input, or first
  // output when it has no inputs), or nullptr.
  const KernelDef* Find(const std::string& op_type, DataType dtype) const;
  std::vector<const KernelDef*> All() const;
  bool Supports(const std::string& op_type) const;

 private:
  std::multimap<std::string, KernelDef> defs_;
};

}  // namespace ge::device

// What precision_mode / precision_mode_v2 ask of the precision_mode pass
// (docs/precision.md): which dtype each node computes in, given the built-in
// mixed-precision lists, modify_mixlist's edits and keep_dtype.
#pragma once

#include <set>
#include <string>

#include "ge/graph.h"
#include "passes/precision_lists.h"

namespace ge::passes {

// Attributes the pass leaves on the nodes it considered: the dtype the node
// computes in and why (shown by `ge info` through the graph dump).
inline constexpr const char* kPrecisionDtypeAttr = "_precision_dtype";
inline constexpr const char* kPrecisionReasonAttr = "_precision_reason";

enum class PrecisionPolicyKind {
  kOrigin,     // must_keep_origin_dtype, origin: the graph's dtypes
  kForceFp32,  // force_fp32, cube_fp16in_fp32out: float16/bfloat16 nodes computed in float32
  kForceLow,   // force_fp16, fp16: every node that has a low-dtype kernel
  kCubeLow,    // allow_fp32_to_fp16, allow_fp32_to_bf16: cube ops only
  kMixed,      // allow_mix_precision*, mixed_*: trust list low, block list float32, gray follows
};

struct PrecisionPolicy {
  PrecisionPolicyKind kind = PrecisionPolicyKind::kOrigin;
  DataType low = DataType::kFloat16;  // the reduced dtype of kForceLow, kCubeLow and kMixed
  std::string option;                 // "precision_mode=force_fp16", for reasons
  KeepDtypeList keep;
  std::set<std::string> block, trust;  // kMixed: the built-in lists with modify_mixlist applied

  bool Keeps(const Node& node) const;
};

// The built-in mixed-precision lists: trust (may be lowered) and block (stay
// float32); every other op type is gray.
const std::set<std::string>& BuiltinTrustList();
const std::set<std::string>& BuiltinBlockList();
// Cube ops (matrix products and convolutions), lowered by allow_fp32_to_*.
bool IsCubeOp(const std::string& op_type);

// Values as checked by runtime/options.cc; precision_mode_v2 wins when given.
// The edits apply to the mixed modes only (options.cc refuses them elsewhere).
PrecisionPolicy MakePrecisionPolicy(const std::string& precision_mode, const std::string& precision_mode_v2,
                                    KeepDtypeList keep, const MixlistEdits& edits);

}  // namespace ge::passes

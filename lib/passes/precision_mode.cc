#include "passes/precision_mode.h"

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::passes {

bool PrecisionPolicy::Keeps(const Node& node) const {
  return keep.node_names.count(node.name()) != 0 || keep.op_types.count(node.op_type()) != 0;
}

// GE's precision_reduce flags, for ge's op names: the cube ops (matrix
// products and convolutions) gain most from float16 and accumulate widely.
const std::set<std::string>& BuiltinTrustList() {
  static const std::set<std::string> list = {"MatMulV2", "BatchMatMulV2",   "Conv2D",
                                             "Conv3D",   "Conv2DTranspose", "Conv3DTranspose"};
  return list;
}

// Ops whose results float16 rounding or range would hurt: exponentials and
// logarithms overflow, normalizations and reductions sum many terms.
const std::set<std::string>& BuiltinBlockList() {
  static const std::set<std::string> list = {
      "SoftmaxV2",  "LogSoftmaxV2", "LayerNorm",     "BatchNorm",        "InstanceNorm",     "LRN",
      "ReduceSum",  "ReduceSumD",   "ReduceMeanD",   "ReduceProdD",      "ReduceL1D",        "ReduceL2D",
      "ReduceLogSumD", "ReduceLogSumExpD", "ReduceSumSquareD", "Cumsum", "Exp", "Log", "Pow", "Softplus", "NLLLoss"};
  return list;
}

bool IsCubeOp(const std::string& op_type) { return BuiltinTrustList().count(op_type) != 0; }

namespace {

struct ModeMeaning {
  PrecisionPolicyKind kind;
  DataType low;
};

ModeMeaning Meaning(const std::string& value) {
  using K = PrecisionPolicyKind;
  if (value == "must_keep_origin_dtype" || value == "origin") return {K::kOrigin, DataType::kFloat16};
  if (value == "force_fp32" || value == "cube_fp16in_fp32out") return {K::kForceFp32, DataType::kFloat16};
  if (value == "force_fp16" || value == "fp16") return {K::kForceLow, DataType::kFloat16};
  if (value == "allow_fp32_to_fp16") return {K::kCubeLow, DataType::kFloat16};
  if (value == "allow_fp32_to_bf16") return {K::kCubeLow, DataType::kBFloat16};
  if (value == "allow_mix_precision" || value == "allow_mix_precision_fp16" || value == "mixed_float16") {
    return {K::kMixed, DataType::kFloat16};
  }
  if (value == "allow_mix_precision_bf16" || value == "mixed_bfloat16") return {K::kMixed, DataType::kBFloat16};
  throw Error(ErrorCode::kInvalidArgument, fmt::format("unknown precision mode '{}'", value));
}

// to-add puts an op on a list (and off the other); to-remove makes it gray.
void ApplyEdits(const MixlistEdits& edits, PrecisionPolicy& policy) {
  for (const std::string& op : edits.black_remove) policy.block.erase(op);
  for (const std::string& op : edits.white_remove) policy.trust.erase(op);
  for (const std::string& op : edits.black_add) {
    policy.block.insert(op);
    policy.trust.erase(op);
  }
  for (const std::string& op : edits.white_add) {
    policy.trust.insert(op);
    policy.block.erase(op);
  }
}

}  // namespace

PrecisionPolicy MakePrecisionPolicy(const std::string& precision_mode, const std::string& precision_mode_v2,
                                    KeepDtypeList keep, const MixlistEdits& edits) {
  PrecisionPolicy policy;
  const std::string& value = precision_mode_v2.empty() ? precision_mode : precision_mode_v2;
  policy.option = fmt::format("{}={}", precision_mode_v2.empty() ? "precision_mode" : "precision_mode_v2", value);
  ModeMeaning meaning = Meaning(value);
  policy.kind = meaning.kind;
  policy.low = meaning.low;
  policy.keep = std::move(keep);
  if (policy.kind == PrecisionPolicyKind::kMixed) {
    policy.block = BuiltinBlockList();
    policy.trust = BuiltinTrustList();
    ApplyEdits(edits, policy);
  }
  return policy;
}

}  // namespace ge::passes

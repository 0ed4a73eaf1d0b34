// aclSetCompileopt and aclopSetCompileFlag: the emulator validates and records
// the options (ge::acl_emulator::CompileOption reads them back); its kernels
// are ge's CPU kernels, which these options do not change.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "acl/acl_op_compiler.h"
#include "device/acl/emulator/emulator_state.h"

using ge::acl_emulator::Emulator;
using ge::acl_emulator::Fail;

namespace {

struct OptionSpec {
  aclCompileOpt option;
  const char* name;
  std::vector<std::string_view> values;  // empty: any value
};

const std::vector<OptionSpec>& OptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      {ACL_PRECISION_MODE,
       "ACL_PRECISION_MODE",
       {"force_fp32", "force_fp16", "cube_fp16in_fp32out", "allow_fp32_to_fp16", "must_keep_origin_dtype",
        "allow_mix_precision", "allow_mix_precision_fp16", "allow_mix_precision_bf16", "allow_fp32_to_bf16",
        "force_lowerprecision"}},
      {ACL_PRECISION_MODE_V2,
       "ACL_PRECISION_MODE_V2",
       {"fp16", "origin", "cube_fp16in_fp32out", "mixed_float16", "mixed_bfloat16", "cube_hif8", "mixed_hif8"}},
      {ACL_OP_SELECT_IMPL_MODE,
       "ACL_OP_SELECT_IMPL_MODE",
       {"high_precision", "high_performance", "high_precision_for_all", "high_performance_for_all"}},
      {ACL_AICORE_NUM, "ACL_AICORE_NUM", {}},
      {ACL_AUTO_TUNE_MODE, "ACL_AUTO_TUNE_MODE", {}},
      {ACL_OPTYPELIST_FOR_IMPLMODE, "ACL_OPTYPELIST_FOR_IMPLMODE", {}},
      {ACL_OP_PRECISION_MODE, "ACL_OP_PRECISION_MODE", {}},
      {ACL_ALLOW_HF32, "ACL_ALLOW_HF32", {"00", "01", "10", "11"}},
  };
  return specs;
}

}  // namespace

extern "C" {

aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  const auto& specs = OptionSpecs();
  auto spec = std::find_if(specs.begin(), specs.end(), [opt](const OptionSpec& s) { return s.option == opt; });
  if (spec == specs.end()) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("aclSetCompileopt: option {} is not one the emulator knows", static_cast<int>(opt)));
  }
  if (value == nullptr)
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("aclSetCompileopt: {}: value is null", spec->name));
  if (!spec->values.empty() && std::find(spec->values.begin(), spec->values.end(), value) == spec->values.end()) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("aclSetCompileopt: {}: invalid value '{}'; valid values: {}",
                                                     spec->name, value, fmt::join(spec->values, ", ")));
  }
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  emulator.compile_options[opt] = value;
  return ACL_SUCCESS;
}

aclError aclopSetCompileFlag(aclOpCompileFlag flag) {
  if (flag != ACL_OP_COMPILE_DEFAULT && flag != ACL_OP_COMPILE_FUZZ) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("aclopSetCompileFlag: flag {} is neither ACL_OP_COMPILE_DEFAULT "
                                                     "(0) nor ACL_OP_COMPILE_FUZZ (1)",
                                                     static_cast<int>(flag)));
  }
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  emulator.compile_flag = flag;
  return ACL_SUCCESS;
}

}  // extern "C"

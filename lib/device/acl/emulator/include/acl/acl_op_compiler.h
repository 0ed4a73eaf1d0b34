// Single-op compilation options and aclopCompileAndExecute.
#pragma once

#include "acl/acl_base.h"
#include "acl/acl_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ACL_COMPILE_SYS = 0,
  ACL_COMPILE_UNREGISTERED = 1,
} aclopCompileType;

typedef enum {
  ACL_OP_COMPILE_DEFAULT = 0,
  ACL_OP_COMPILE_FUZZ = 1,
} aclOpCompileFlag;

// Options of later op compilations; the values left out here are not used by ge.
typedef enum {
  ACL_PRECISION_MODE = 0,
  ACL_AICORE_NUM = 1,
  ACL_AUTO_TUNE_MODE = 2,
  ACL_OP_SELECT_IMPL_MODE = 3,
  ACL_OPTYPELIST_FOR_IMPLMODE = 4,
  ACL_OP_PRECISION_MODE = 13,
  ACL_ALLOW_HF32 = 14,
  ACL_PRECISION_MODE_V2 = 15,
} aclCompileOpt;

aclError aclopCompileAndExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs,
                                const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],
                                const aclopAttr* attr, aclopEngineType engineType, aclopCompileType compileFlag,
                                const char* opPath, aclrtStream stream);

aclError aclSetCompileopt(aclCompileOpt opt, const char* value);
aclError aclopSetCompileFlag(aclOpCompileFlag flag);

#ifdef __cplusplus
}
#endif

// Single-op execution: op attributes and aclopExecuteV2.
#pragma once

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopAttr aclopAttr;

typedef enum {
  ACL_ENGINE_SYS = 0,
  ACL_ENGINE_AICORE = 1,
  ACL_ENGINE_VECTOR = 2,
} aclopEngineType;

aclopAttr* aclopCreateAttr();
void aclopDestroyAttr(const aclopAttr* attr);

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue);
aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue);
aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue);
aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue);
aclError aclopSetAttrDataType(aclopAttr* attr, const char* attrName, aclDataType attrValue);
aclError aclopSetAttrListBool(aclopAttr* attr, const char* attrName, int numValues, const uint8_t* values);
aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues, const int64_t* values);
aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName, int numValues, const float* values);
aclError aclopSetAttrListString(aclopAttr* attr, const char* attrName, int numValues, const char** values);

// Runs op `opType` on `stream` (compiling it first when needed); outputs are
// written when the stream reaches the op.
aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                        int numOutputs, aclTensorDesc* outputDesc[], aclDataBuffer* outputs[], aclopAttr* attr,
                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

// Tensor descriptors, data buffers and op attributes of the emulator.
#include <fmt/core.h>

#include <optional>

#include "acl/acl.h"
#include "device/acl/emulator/emulator_state.h"
#include "device/acl/emulator/op_attr.h"
#include "device/acl/emulator/type_mapping.h"

using ge::acl_emulator::Fail;

namespace {

aclError SetAttr(aclopAttr* attr, const char* call, const char* name, ge::AttrValue value) {
  if (attr == nullptr || name == nullptr || name[0] == '\0') {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("{}: {} is null or empty", call, attr == nullptr ? "attr" : "attrName"));
  }
  attr->attrs.Set(name, std::move(value));
  return ACL_SUCCESS;
}

// Checks the list arguments of aclopSetAttrList*: a count >= 0 and values unless it is 0.
aclError CheckList(const char* call, const char* name, int num_values, const void* values) {
  if (num_values < 0 || (num_values > 0 && values == nullptr)) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("{}: attribute '{}': numValues {} with {} values", call, name == nullptr ? "" : name,
                            num_values, values == nullptr ? "null" : "non-null"));
  }
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims, aclFormat format) {
  if (numDims < 0 || (numDims > 0 && dims == nullptr)) {
    Fail(ACL_ERROR_INVALID_PARAM,
         fmt::format("aclCreateTensorDesc: numDims {} with {} dims", numDims, dims == nullptr ? "null" : "non-null"));
    return nullptr;
  }
  auto* desc = new aclTensorDesc;
  desc->dtype = dataType;
  desc->dims.assign(dims, dims + numDims);
  desc->format = format;
  return desc;
}

void aclDestroyTensorDesc(const aclTensorDesc* desc) { delete desc; }

aclDataType aclGetTensorDescType(const aclTensorDesc* desc) { return desc ? desc->dtype : ACL_DT_UNDEFINED; }

aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) { return desc ? desc->format : ACL_FORMAT_UNDEFINED; }

size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) { return desc ? desc->dims.size() : 0; }

aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index, int64_t* dimSize) {
  if (desc == nullptr || dimSize == nullptr || index >= desc->dims.size()) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("aclGetTensorDescDimV2: index {} of a descriptor with {} dims",
                                                     index, desc ? desc->dims.size() : 0));
  }
  *dimSize = desc->dims[index];
  return ACL_SUCCESS;
}

aclError aclSetTensorConst(aclTensorDesc* desc, void* dataBuffer, size_t length) {
  if (desc == nullptr || (dataBuffer == nullptr && length > 0)) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("aclSetTensorConst: {} is null", desc == nullptr ? "desc" : "dataBuffer"));
  }
  const auto* bytes = static_cast<const std::byte*>(dataBuffer);
  desc->constant.emplace(bytes, bytes + length);
  return ACL_SUCCESS;
}

size_t aclGetTensorDescElementCount(const aclTensorDesc* desc) {
  if (desc == nullptr) return 0;
  size_t count = 1;
  for (int64_t dim : desc->dims) count *= dim > 0 ? static_cast<size_t>(dim) : 0;
  return count;
}

size_t aclGetTensorDescSize(const aclTensorDesc* desc) {
  if (desc == nullptr) return 0;
  std::optional<ge::DataType> dtype = ge::acl_emulator::ToGeDataType(desc->dtype);
  return dtype ? aclGetTensorDescElementCount(desc) * ge::DataTypeSize(*dtype) : 0;
}

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) { return new aclDataBuffer{data, size}; }

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  if (dataBuffer == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer: dataBuffer is null");
  delete dataBuffer;
  return ACL_SUCCESS;
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) { return dataBuffer ? dataBuffer->data : nullptr; }

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) { return dataBuffer ? dataBuffer->size : 0; }

aclopAttr* aclopCreateAttr() { return new aclopAttr; }

void aclopDestroyAttr(const aclopAttr* attr) { delete attr; }

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue) {
  return SetAttr(attr, "aclopSetAttrBool", attrName, attrValue != 0);
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue) {
  return SetAttr(attr, "aclopSetAttrInt", attrName, attrValue);
}

aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue) {
  return SetAttr(attr, "aclopSetAttrFloat", attrName, attrValue);
}

aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue) {
  if (attrValue == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclopSetAttrString: attrValue is null");
  return SetAttr(attr, "aclopSetAttrString", attrName, std::string(attrValue));
}

aclError aclopSetAttrDataType(aclopAttr* attr, const char* attrName, aclDataType attrValue) {
  std::optional<ge::DataType> dtype = ge::acl_emulator::ToGeDataType(attrValue);
  if (!dtype) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("aclopSetAttrDataType: attribute '{}': aclDataType {} is not one "
                                                     "ge supports",
                                                     attrName ? attrName : "", static_cast<int>(attrValue)));
  }
  return SetAttr(attr, "aclopSetAttrDataType", attrName, *dtype);
}

// ge has no list-of-bool attribute: booleans travel as 0/1 integers.
aclError aclopSetAttrListBool(aclopAttr* attr, const char* attrName, int numValues, const uint8_t* values) {
  if (aclError status = CheckList("aclopSetAttrListBool", attrName, numValues, values)) return status;
  std::vector<int64_t> list;
  for (int i = 0; i < numValues; ++i) list.push_back(values[i] != 0 ? 1 : 0);
  return SetAttr(attr, "aclopSetAttrListBool", attrName, std::move(list));
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues, const int64_t* values) {
  if (aclError status = CheckList("aclopSetAttrListInt", attrName, numValues, values)) return status;
  return SetAttr(attr, "aclopSetAttrListInt", attrName, std::vector<int64_t>(values, values + numValues));
}

aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName, int numValues, const float* values) {
  if (aclError status = CheckList("aclopSetAttrListFloat", attrName, numValues, values)) return status;
  return SetAttr(attr, "aclopSetAttrListFloat", attrName, std::vector<float>(values, values + numValues));
}

aclError aclopSetAttrListString(aclopAttr* attr, const char* attrName, int numValues, const char** values) {
  if (aclError status = CheckList("aclopSetAttrListString", attrName, numValues, values)) return status;
  std::vector<std::string> list;
  for (int i = 0; i < numValues; ++i) {
    if (values[i] == nullptr) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  fmt::format("aclopSetAttrListString: attribute '{}': value {} is null", attrName ? attrName : "", i));
    }
    list.emplace_back(values[i]);
  }
  return SetAttr(attr, "aclopSetAttrListString", attrName, std::move(list));
}

}  // extern "C"

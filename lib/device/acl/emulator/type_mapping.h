// aclDataType / aclFormat to ge's types. ge numbers DataType like aclDataType
// (include/ge/types.h), so the mapping is a checked cast.
#pragma once

#include <optional>

#include "acl/acl_base.h"
#include "ge/types.h"

namespace ge::acl_emulator {

// The ge dtype of a plain-data aclDataType, or nullopt (undefined, string,
// sub-byte and other types ge has no kernels for).
inline std::optional<DataType> ToGeDataType(aclDataType type) {
  const auto candidate = static_cast<DataType>(type);
  if (type == ACL_DT_UNDEFINED || type == ACL_STRING || DataTypeSize(candidate) == 0) return std::nullopt;
  return candidate;
}

// Formats whose memory layout is the plain row-major layout of the dims; the
// emulator runs ge's CPU kernels, which know no other (no NC1HWC0, FRACTAL_*).
inline bool IsPlainFormat(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_ND:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
      return true;
    default:
      return false;
  }
}

}  // namespace ge::acl_emulator

// Runtime and ABI version queries.
#include "c_api_internal.h"

extern "C" {

const char* ge_version(void) { return GE_VERSION_STRING; }

void ge_abi_version(uint32_t* major, uint32_t* minor) {
  if (major != nullptr) *major = GE_C_ABI_MAJOR;
  if (minor != nullptr) *minor = GE_C_ABI_MINOR;
}

}  // extern "C"

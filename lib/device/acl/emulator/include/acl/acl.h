// The ACL entry header: initialisation and the runtime, base and op APIs.
#pragma once

#include "acl/acl_base.h"
#include "acl/acl_op.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

// configPath: a JSON configuration file, or nullptr for none.
aclError aclInit(const char* configPath);
aclError aclFinalize();
// The message of this thread's most recent failure, or nullptr when there is none.
const char* aclGetRecentErrMsg();

#ifdef __cplusplus
}
#endif

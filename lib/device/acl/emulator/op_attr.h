// The emulator's aclopAttr: ge attributes, as the op's node will carry them.
#pragma once

#include "acl/acl_op.h"
#include "ge/attr.h"

struct aclopAttr {
  ge::AttrMap attrs;
};

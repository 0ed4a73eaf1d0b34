// Compile and run options, and what compiling reports about its passes: the
// small vocabulary that CompiledModel, Session and the pass framework share.
#pragma once

#include <map>
#include <string>

#include "ge/export.h"

namespace ge {

// `ge.*` option keys and their string values (GE's convention; docs/options.md).
using Options = std::map<std::string, std::string>;

// How long one graph pass took during a compile, in its run order.
struct GE_API PassTiming {
  std::string pass;
  double milliseconds = 0;
};

}  // namespace ge

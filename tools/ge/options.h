// The compile options a command collects from --option KEY=VALUE and --threads.
#pragma once

#include "args.h"
#include "ge/compiled_model.h"

namespace ge::cli {

inline const FlagSpec kOptionFlag{"option", "KEY=VALUE", true, "a ge.* compile option (docs/options.md)"};
inline const FlagSpec kThreadsFlag{"threads", "N", false,
                                   "intra-op threads (ge.exec.intraOpThreads; default: all cores)"};

// Throws UsageError for a malformed --option, a key given twice or a bad thread count.
Options CollectOptions(const ParsedArgs& args);

}  // namespace ge::cli

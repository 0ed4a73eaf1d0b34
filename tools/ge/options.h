// The compile options a command collects from --option KEY=VALUE and --threads.
#pragma once

#include <string>
#include <vector>

#include "args.h"
#include "ge/compiled_model.h"

namespace ge::cli {

inline const FlagSpec kOptionFlag{"option", "KEY=VALUE", true, "a ge.* compile option (docs/options.md)"};
inline const FlagSpec kThreadsFlag{"threads", "N", false,
                                   "intra-op threads (ge.exec.intraOpThreads; default: the cores it may use)"};

// ATC's precision flags (`ge compile`), each setting one ge.* option
// (docs/precision.md).
struct OptionFlag {
  FlagSpec flag;
  std::string option;
};
const std::vector<OptionFlag>& PrecisionFlags();

// Throws UsageError for a malformed --option, a key given twice (also as a
// precision flag and an --option) or a bad thread count.
Options CollectOptions(const ParsedArgs& args);

}  // namespace ge::cli

// Which implementation mode each node asks for, from the options
// op_select_implmode, optypelist_for_implmode and op_precision_mode
// (docs/precision.md). Resolution, first match wins:
//   1. an op_precision_mode file: its [ByNodeName] entry for the node, else its
//      ByOpType entry for the op type, else nothing (the file replaces the
//      other two options);
//   2. op_select_implmode=*_for_all: that built-in file's entry for the op type;
//   3. op_select_implmode=high_precision|high_performance (the default):
//      the mode for the op types in optypelist_for_implmode when given,
//      else the built-in high_*.ini entry for the op type.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "graph/impl_mode.h"
#include "passes/impl_mode_ini.h"

namespace ge::passes {

struct ImplModeRequest {
  std::string mode;    // empty: nothing asks for a mode
  std::string reason;  // which option or file line asked, or why nothing did
};

struct ImplModeSelection {
  std::string select_mode{kDefaultImplModeSelection};  // op_select_implmode
  bool select_mode_given = false;                // false: the default applies
  std::vector<std::string> optypelist;           // optypelist_for_implmode
  std::optional<ImplModeFile> op_precision;      // the op_precision_mode file

  // Throws kInvalidArgument (file, line, op, allowed modes) when the node's
  // [ByNodeName] entry sets a mode its op type does not offer.
  ImplModeRequest RequestFor(const Node& node) const;
};

// The selection for the options' values: loads and checks the
// op_precision_mode file (every ByOpType entry against all_ops_impl_mode.ini)
// and checks the optypelist op types against the op registry. Prints the
// one-time deprecation notice when select_mode_given. Throws ge::Error.
ImplModeSelection MakeImplModeSelection(const std::string& select_mode, bool select_mode_given,
                                        const std::vector<std::string>& optypelist,
                                        const std::string& op_precision_path);

}  // namespace ge::passes

// Which implementation mode each node of a compiled model runs in, and why
// (options op_select_implmode, optypelist_for_implmode, op_precision_mode;
// docs/precision.md). Shown by `ge compile --report` and `ge info`.
#pragma once

#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/export.h"

namespace ge {

struct GE_API ImplModeRecord {
  std::string node;
  std::string op_type;
  DataType dtype = DataType::kUndefined;  // the dtype the kernel was chosen for (first input)
  std::string requested;                  // empty: no option or file asked for a mode
  std::string applied;                    // empty: the kernel declares no modes
  // Which option or file line asked (file:line [section]), and why the
  // request was not honoured when it was not (single implementation, mode
  // not implemented for this dtype).
  std::string reason;
};

// The nodes that asked for a mode or whose kernel offers a choice, in
// topological order. Nodes without either run their only implementation and
// are left out. Survives Save/Load.
GE_API std::vector<ImplModeRecord> ImplModeReport(const CompiledModel& model);

}  // namespace ge

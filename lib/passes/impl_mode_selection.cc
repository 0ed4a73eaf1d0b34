#include "passes/impl_mode_selection.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "ge/error.h"
#include "graph/op_schema.h"

namespace ge::passes {
namespace {

std::string DescribeEntry(const ImplModeEntry& entry, std::string_view section) {
  return fmt::format("{}:{} [{}]", entry.file, entry.line, section);
}

// GE stopped evolving op_select_implmode; say so once per process, not per compile.
void PrintDeprecationNotice() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::fprintf(stderr,
                 "ge: warning: op_select_implmode (ge.opSelectImplmode) is deprecated and no longer evolves; "
                 "use op_precision_mode (ge.exec.op_precision_mode) with an ini file instead (docs/precision.md)\n");
  });
}

void CheckOpTypesKnown(const std::vector<std::string>& op_types) {
  for (const std::string& op_type : op_types) {
    if (OpRegistry::Global().Find(op_type) == nullptr) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("option ge.optypelistForImplmode: unknown op type '{}' (op types as in docs/op-set.md, "
                              "e.g. SoftmaxV2)",
                              op_type));
    }
  }
}

}  // namespace

ImplModeRequest ImplModeSelection::RequestFor(const Node& node) const {
  const std::string& op_type = node.op_type();
  if (op_precision) {
    if (auto it = op_precision->by_node_name.find(node.name()); it != op_precision->by_node_name.end()) {
      CheckModeAllowed(it->second, op_type, node.name());
      return {it->second.mode, "op_precision_mode " + DescribeEntry(it->second, "ByNodeName")};
    }
    if (auto it = op_precision->by_op_type.find(op_type); it != op_precision->by_op_type.end()) {
      return {it->second.mode, "op_precision_mode " + DescribeEntry(it->second, "ByOpType")};
    }
    return {"", fmt::format("not in op_precision_mode {}", op_precision->file)};
  }
  const std::string option = fmt::format("op_select_implmode={}{}", select_mode, select_mode_given ? "" : " (default)");
  if (!optypelist.empty()) {
    if (std::find(optypelist.begin(), optypelist.end(), op_type) != optypelist.end()) {
      return {select_mode, option + " for optypelist_for_implmode"};
    }
    return {"", "not in optypelist_for_implmode"};
  }
  const ImplModeFile& builtin = BuiltinImplModeFile(select_mode);
  if (auto it = builtin.by_op_type.find(op_type); it != builtin.by_op_type.end()) {
    return {it->second.mode, option + " " + DescribeEntry(it->second, "ByOpType")};
  }
  return {"", fmt::format("not in {}", builtin.file)};
}

ImplModeSelection MakeImplModeSelection(const std::string& select_mode, bool select_mode_given,
                                        const std::vector<std::string>& optypelist,
                                        const std::string& op_precision_path) {
  if (select_mode_given) PrintDeprecationNotice();
  ImplModeSelection selection;
  selection.select_mode = select_mode;
  selection.select_mode_given = select_mode_given;
  selection.optypelist = optypelist;
  CheckOpTypesKnown(optypelist);
  if (!op_precision_path.empty()) {
    try {
      ImplModeFile file = LoadImplModeFile(op_precision_path);
      for (const auto& [op_type, entry] : file.by_op_type) {
        CheckModeAllowed(entry, op_type, op_type);
      }
      selection.op_precision = std::move(file);
    } catch (const Error& error) {
      throw Error(error.code(), fmt::format("option ge.exec.op_precision_mode: {}", error.what()));
    }
  }
  return selection;
}

}  // namespace ge::passes

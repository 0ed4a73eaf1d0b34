// The ini files of implementation-mode selection (docs/precision.md).
//
// Two formats share one reader:
// - mode files (op_precision_mode, and the built-in high_precision.ini,
//   high_performance.ini, high_precision_for_all.ini, high_performance_for_all.ini):
//   `OpType=mode` lines, sectionless or under [ByOpType], and `NodeName=mode`
//   lines under [ByNodeName];
// - all_ops_impl_mode.ini: `OpType=mode1,mode2`, the modes each op offers
//   (the default first), in agreement with the kernel registry.
// `#` starts a comment; blank lines are skipped. Every error names the file
// and the line.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ge::passes {

// One `key=mode` line of a mode file.
struct ImplModeEntry {
  std::string mode;
  std::string file;  // as the user named it, or the built-in file's name
  int line = 0;      // 1-based
};

struct ImplModeFile {
  std::string file;
  std::map<std::string, ImplModeEntry> by_op_type;
  std::map<std::string, ImplModeEntry> by_node_name;
};

// Op type -> the modes its kernels implement, the default first.
using OpImplModes = std::map<std::string, std::vector<std::string>>;

// Parses a mode file. Throws kInvalidArgument naming `file` and the line for
// a malformed line, an unknown section, a key given twice in a section, or a
// mode not in KnownImplModes().
ImplModeFile ParseImplModeFile(std::string_view text, const std::string& file);
// Reads and parses the file at `path`; kNotFound when it cannot be read.
ImplModeFile LoadImplModeFile(const std::string& path);

// Parses all_ops_impl_mode.ini text (errors as for ParseImplModeFile).
OpImplModes ParseOpImplModes(std::string_view text, const std::string& file);

// The built-in files (data/impl_mode/, compiled into the library). `name`
// without ".ini": "high_precision", "high_performance_for_all", ...; throws
// kInternal for a name that is not built in.
const ImplModeFile& BuiltinImplModeFile(const std::string& name);
// all_ops_impl_mode.ini.
const OpImplModes& AllOpsImplModes();
// The text of a built-in file by file name ("all_ops_impl_mode.ini"); empty when none.
std::string_view BuiltinImplModeText(std::string_view file_name);

// Checks a mode-file entry for `op_type` against all_ops_impl_mode.ini:
// kInvalidArgument naming the file, line, op and the allowed modes when the
// op does not offer the mode. `key` is the entry's key (op type or node name).
void CheckModeAllowed(const ImplModeEntry& entry, const std::string& op_type, const std::string& key);

}  // namespace ge::passes

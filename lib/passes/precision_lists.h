// The user lists that adjust precision_mode (docs/precision.md):
// keep_dtype (nodes and op types that keep their original dtype) and
// modify_mixlist (edits of the mixed-precision block/trust lists). Parsed and
// checked when a graph is compiled; every error names the file and the line.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace ge::passes {

// keep_dtype: one entry per line, a node name or `OpType::Relu`; blank lines
// and `#` comments skipped.
struct KeepDtypeList {
  std::set<std::string> node_names;
  std::set<std::string> op_types;
};

// Throws kInvalidArgument (file:line) for `OpType::` without a known op type.
KeepDtypeList ParseKeepDtype(std::string_view text, const std::string& file);
// kNotFound when the file cannot be read.
KeepDtypeList LoadKeepDtype(const std::string& path);

// modify_mixlist: {"black-list": {"to-add": [...], "to-remove": [...]},
//                  "white-list": {"to-add": [...], "to-remove": [...]}}, op types.
// to-add puts an op on the list; to-remove moves it to the gray list (it
// follows its producer).
struct MixlistEdits {
  std::set<std::string> black_add, black_remove, white_add, white_remove;
};

// Throws kInvalidArgument (file:line) for malformed JSON, an unknown key, an
// unknown op type, or an op both added to and removed from one list.
MixlistEdits ParseMixlist(std::string_view text, const std::string& file);
MixlistEdits LoadMixlist(const std::string& path);

}  // namespace ge::passes

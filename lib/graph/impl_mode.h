// Implementation modes (ATC's op_select_implmode family): the contract between
// the impl_mode selection pass (lib/passes), kernel selection (lib/runtime)
// and the kernels (lib/device). The pass records on a node the mode its
// kernel applies; selection checks the kernel implements it; the kernel reads
// it. They all read it through AppliedImplMode / ImplModeOf. The attributes
// travel in .gem files; the leading underscore marks them as ge-internal.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/graph.h"

namespace ge {

// The node attributes (strings): the mode the kernel applies, what an option
// or file asked for (empty: nothing), and why the applied mode was chosen.
inline constexpr const char* kImplModeAttr = "_op_impl_mode";
inline constexpr const char* kRequestedImplModeAttr = "_op_impl_mode_requested";
inline constexpr const char* kImplModeReasonAttr = "_op_impl_mode_reason";

// The modes kernels implement. high_precision computes in float32 or wider
// without approximations; high_performance uses approximations or a narrower
// accumulation. The two fp32 execution modes of the cube ops: full float32
// products, or products of operands rounded to bfloat16 (the CPU's stand-in
// for HF32) accumulated in float32.
inline constexpr std::string_view kHighPrecision = "high_precision";
inline constexpr std::string_view kHighPerformance = "high_performance";
inline constexpr std::string_view kFloat32Execution = "enable_float_32_execution";
inline constexpr std::string_view kHiFloat32Execution = "enable_hi_float_32_execution";

// Every mode name an implementation-mode ini file may use (ATC's list; ge's
// kernels implement the four above).
const std::vector<std::string>& KnownImplModes();

// The values of op_select_implmode (ge.opSelectImplmode) and its default.
const std::vector<std::string>& ImplModeSelections();
inline constexpr std::string_view kDefaultImplModeSelection = kHighPerformance;

// The mode recorded on the node (kImplModeAttr), if any.
std::optional<std::string_view> AppliedImplMode(const Node& node);

// The node's applied mode, or `fallback` (the kernel's default) when it has none.
inline std::string_view ImplModeOf(const Node& node, std::string_view fallback) {
  return AppliedImplMode(node).value_or(fallback);
}

}  // namespace ge

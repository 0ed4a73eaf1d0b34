// "Did you mean ...?": the known name a misspelled one most likely stands for.
// One implementation for every place that rejects a name: the `ge` tool's
// commands and flags, and the runtime's ge.* option keys.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ge {

// The candidate nearest to `given` by edit distance (insertions, deletions,
// substitutions and swaps of adjacent characters, ignoring case), when it is
// near enough to be a typo: at most 2 edits, or a third of `given`'s length
// for long names, and fewer edits than either name has characters. The first
// of equally near candidates wins; nullopt when none is near enough.
std::optional<std::string> ClosestName(std::string_view given, std::span<const std::string> candidates);

}  // namespace ge

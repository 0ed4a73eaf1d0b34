#include "graph/closest_name.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ge {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance (Damerau-Levenshtein without editing a
// substring twice), which counts a swapped pair like "--lopo" as one typo.
size_t EditDistance(std::string_view a, std::string_view b) {
  const size_t columns = b.size() + 1;
  std::vector<size_t> d((a.size() + 1) * columns);
  auto at = [&](size_t i, size_t j) -> size_t& { return d[i * columns + j]; };
  for (size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
  for (size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + substitution});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) && Lower(a[i - 2]) == Lower(b[j - 1])) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(a.size(), b.size());
}

}  // namespace

std::optional<std::string> ClosestName(std::string_view given, std::span<const std::string> candidates) {
  const size_t allowed = std::max<size_t>(2, given.size() / 3);
  std::optional<std::string> closest;
  size_t closest_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    const size_t distance = EditDistance(given, candidate);
    // Replacing every character of a short name is not a typo of it.
    const bool plausible = distance < given.size() && distance < candidate.size();
    if (plausible && distance < closest_distance) {
      closest = candidate;
      closest_distance = distance;
    }
  }
  return closest;
}

}  // namespace ge

#include "graph/einsum_equation.h"

#include <algorithm>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge {
namespace {

constexpr int kLetters = 52;

[[noreturn]] void Bad(const std::string& equation, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, fmt::format("einsum equation '{}': {}", equation, why));
}

int LetterLabel(const std::string& equation, char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  Bad(equation, fmt::format("'{}' is not a letter", c));
}

// One operand's term: letter labels with the ellipsis at `ellipsis` (or -1).
struct Term {
  std::vector<int> letters;
  int ellipsis = -1;
};

Term ParseTerm(const std::string& equation, const std::string& text) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ' ') continue;
    if (text[i] == '.') {
      if (text.compare(i, 3, "...") != 0 || term.ellipsis >= 0) Bad(equation, "malformed or repeated ellipsis");
      term.ellipsis = static_cast<int>(term.letters.size());
      i += 2;
      continue;
    }
    term.letters.push_back(LetterLabel(equation, text[i]));
  }
  return term;
}

// The term's labels for `ellipsis_dims` broadcast dims right-aligned to `max_ellipsis`.
std::vector<int> Expand(const Term& term, size_t ellipsis_dims, size_t max_ellipsis) {
  std::vector<int> labels(term.letters.begin(), term.letters.end());
  if (term.ellipsis >= 0) {
    std::vector<int> broadcast;
    for (size_t k = max_ellipsis - ellipsis_dims; k < max_ellipsis; ++k) broadcast.push_back(kLetters + static_cast<int>(k));
    labels.insert(labels.begin() + term.ellipsis, broadcast.begin(), broadcast.end());
  }
  return labels;
}

}  // namespace

EinsumEquation ParseEinsum(const std::string& equation, const std::vector<size_t>& ranks) {
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(ParseTerm(equation, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ranks.size()) {
    Bad(equation, fmt::format("it has {} operand terms but the op has {} inputs", terms.size(), ranks.size()));
  }
  std::vector<size_t> ellipsis_dims(terms.size(), 0);
  size_t max_ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const size_t letters = terms[i].letters.size();
    if (terms[i].ellipsis < 0 ? ranks[i] != letters : ranks[i] < letters) {
      Bad(equation, fmt::format("term {} has {} labels but input {} has rank {}", i, letters, i, ranks[i]));
    }
    ellipsis_dims[i] = ranks[i] - letters;
    max_ellipsis = std::max(max_ellipsis, ellipsis_dims[i]);
  }
  EinsumEquation eq;
  eq.num_labels = kLetters + static_cast<int>(max_ellipsis);
  for (size_t i = 0; i < terms.size(); ++i) eq.inputs.push_back(Expand(terms[i], ellipsis_dims[i], max_ellipsis));
  if (arrow != std::string::npos) {
    const Term out = ParseTerm(equation, equation.substr(arrow + 2));
    eq.output = Expand(out, out.ellipsis >= 0 ? max_ellipsis : 0, max_ellipsis);
    for (size_t i = 0; i < eq.output.size(); ++i) {
      const int label = eq.output[i];
      if (std::count(eq.output.begin(), eq.output.end(), label) != 1) Bad(equation, "the output repeats a label");
      const bool used = std::any_of(eq.inputs.begin(), eq.inputs.end(), [&](const std::vector<int>& in) {
        return std::find(in.begin(), in.end(), label) != in.end();
      });
      if (!used) Bad(equation, "the output has a label no input has");
    }
  } else {
    for (size_t k = 0; k < max_ellipsis; ++k) eq.output.push_back(kLetters + static_cast<int>(k));
    std::vector<int> count(kLetters, 0);
    for (const auto& in : eq.inputs) {
      for (int label : in) {
        if (label < kLetters) ++count[label];
      }
    }
    for (int label = 0; label < kLetters; ++label) {
      if (count[label] == 1) eq.output.push_back(label);
    }
  }
  return eq;
}

std::vector<int64_t> EinsumLabelSizes(const EinsumEquation& eq, const std::vector<Shape>& shapes) {
  std::vector<int64_t> sizes(eq.num_labels, Shape::kUnknownDim);
  std::vector<bool> seen(eq.num_labels, false);
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    for (size_t d = 0; d < eq.inputs[i].size(); ++d) {
      const int label = eq.inputs[i][d];
      const int64_t dim = shapes[i].dim(d);
      seen[label] = true;
      if (dim == Shape::kUnknownDim) continue;
      int64_t& size = sizes[label];
      // Ellipsis dims broadcast (size 1 stretches); letter dims must agree.
      if (size == Shape::kUnknownDim || (label >= kLetters && size == 1)) {
        size = dim;
      } else if (dim != size && !(label >= kLetters && dim == 1)) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("einsum: dim {} of input {} {} is {}, but the same label has size {} elsewhere", d, i,
                                shapes[i].ToString(), dim, size));
      }
    }
  }
  for (int label = 0; label < eq.num_labels; ++label) {
    if (!seen[label]) sizes[label] = 1;  // unused letters: never looped over
  }
  return sizes;
}

}  // namespace ge

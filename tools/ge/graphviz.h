// Rendering a DOT graph into a picture with Graphviz's `dot` (package graphviz).
#pragma once

#include <string>

namespace ge::cli {

// Runs `dot -T<format>` (format: svg, png, pdf) on `dot_text` and returns the
// picture. Nothing is written next to the user's files; the caller writes the
// result. Throws ge::Error: kNotFound when `dot` is not on PATH (naming the
// package), kIoError with dot's own first error line when it fails.
std::string RenderDot(const std::string& dot_text, const std::string& format);

}  // namespace ge::cli

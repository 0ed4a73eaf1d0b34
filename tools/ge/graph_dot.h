// The compiled graph in Graphviz's DOT language, for `ge viz`: one box per
// node (op type and name), filled with its stream's colour; graph inputs and
// outputs as ellipses; edges labelled with dtype and shape. Constants are
// left out: they would outnumber everything else.
#pragma once

#include <string>

#include "ge/plan_summary.h"

namespace ge::cli {

std::string GraphToDot(const Graph& graph, const PlanSummary& plan);

// A fill colour per stream (cycling after a dozen).
std::string StreamColour(int stream);

}  // namespace ge::cli

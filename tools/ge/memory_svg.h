// The memory plan as an SVG picture, for `ge viz --memory`: schedule steps
// left to right, arena offsets top to bottom, one box per activation spanning
// its lifetime (hover for name, bytes and steps).
#pragma once

#include <string>

#include "ge/plan_summary.h"

namespace ge::cli {

std::string MemoryPlanSvg(const PlanSummary& plan, const std::string& title);

}  // namespace ge::cli

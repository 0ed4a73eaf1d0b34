// A run profile as Chrome trace-event JSON (chrome://tracing, Perfetto): one
// track per stream with one span per step (op type as the name; node, kernel
// and shapes as arguments) and a counter track of live activation bytes.
#pragma once

#include <string>

#include "ge/profile.h"

namespace ge::cli {

std::string ChromeTrace(const RunProfile& profile, const std::string& model_name);

}  // namespace ge::cli

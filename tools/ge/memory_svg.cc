#include "memory_svg.h"

#include <algorithm>
#include <sstream>

#include <fmt/core.h>

#include "graph_dot.h"

namespace ge::cli {
namespace {

constexpr double kStepWidth = 14;
constexpr double kArenaHeight = 480;
constexpr double kMargin = 48;

std::string EscapeXml(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '&': escaped += "&amp;"; break;
      case '"': escaped += "&quot;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

}  // namespace

std::string MemoryPlanSvg(const PlanSummary& plan, const std::string& title) {
  const size_t steps = std::max<size_t>(plan.steps.size(), 1);
  const double arena = static_cast<double>(std::max<size_t>(plan.feature_bytes, 1));
  const double width = kMargin * 2 + kStepWidth * static_cast<double>(steps);
  const double height = kMargin * 2 + kArenaHeight;
  const double scale = kArenaHeight / arena;

  std::ostringstream svg;
  svg << fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" font-family="Helvetica" font-size="11">)",
                     width, height)
      << "\n";
  svg << fmt::format(R"(<text x="{}" y="20">{} - arena {} bytes, {} steps, {} activations{}</text>)", kMargin,
                     EscapeXml(title), plan.feature_bytes, plan.steps.size(), plan.buffers.size(),
                     plan.dynamic ? " (dynamic model: nothing is planned)" : "")
      << "\n";
  svg << fmt::format(R"(<rect x="{}" y="{}" width="{:.1f}" height="{}" fill="none" stroke="#999"/>)", kMargin, kMargin,
                     kStepWidth * static_cast<double>(steps), kArenaHeight)
      << "\n";
  svg << fmt::format(R"(<text x="{}" y="{}">offset 0</text>)", 4, kMargin + 10) << "\n";
  svg << fmt::format(R"(<text x="{}" y="{:.0f}">step</text>)", kMargin, height - 16) << "\n";
  for (const PlannedBuffer& buffer : plan.buffers) {
    const double x = kMargin + kStepWidth * buffer.first_step;
    const double w = kStepWidth * (buffer.last_step - buffer.first_step + 1);
    const double y = kMargin + static_cast<double>(buffer.offset) * scale;
    const double h = std::max(static_cast<double>(buffer.bytes) * scale, 1.0);
    const int stream = buffer.first_step < static_cast<int>(plan.steps.size()) ? plan.steps[buffer.first_step].stream : 0;
    svg << fmt::format(R"(<rect x="{:.1f}" y="{:.2f}" width="{:.1f}" height="{:.2f}" fill="{}" stroke="#555" stroke-width="0.5">)",
                       x, y, w, h, StreamColour(stream));
    svg << fmt::format("<title>{}: {} bytes at offset {}, steps {}-{}</title></rect>\n", EscapeXml(buffer.value),
                       buffer.bytes, buffer.offset, buffer.first_step, buffer.last_step);
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace ge::cli

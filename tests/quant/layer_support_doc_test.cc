// docs/quantization.md lists the quantizable layers by hand; this keeps it in
// step with the table the planner uses.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "quant/layer_support.h"
#include "test_support.h"

namespace ge::quant {
namespace {

std::string ReadDoc() {
  std::ifstream in(ge::test::SourceDir() / "docs" / "quantization.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("docs/quantization.md lists every quantizable layer and weight-only op", "[layer_support][docs]") {
  const std::string doc = ReadDoc();
  REQUIRE(!doc.empty());
  for (const LayerSupportRow& row : LayerSupportTable()) {
    const std::string cells = "| " + row.framework + " | " + row.framework_op + " | " + row.ascend_ops + " |";
    INFO(cells);
    CHECK(doc.find(cells) != std::string::npos);
  }
  for (const WeightOnlySupportRow& row : WeightOnlySupportTable()) {
    const std::string cells = "| " + row.ascend_op + " | " + row.channel_wise + " | " + row.asymmetric + " |";
    INFO(cells);
    CHECK(doc.find(cells) != std::string::npos);
  }
}

}  // namespace
}  // namespace ge::quant

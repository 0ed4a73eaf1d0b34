// Output names become safe file names inside --output-dir.
#include <catch2/catch.hpp>

#include "output_file_name.h"

namespace ge::cli {
namespace {

TEST_CASE("output file names keep the characters A-Za-z0-9._- and replace everything else") {
  CHECK(OutputFileName("probabilities") == "probabilities.npy");
  CHECK(OutputFileName("Out-1.v2_x") == "Out-1.v2_x.npy");
  CHECK(OutputFileName("logits:0") == "logits_0.npy");
  CHECK(OutputFileName("../block/out put") == ".._block_out_put.npy");
  CHECK(OutputFileName("\xc3\xa9") == "__.npy");  // each byte of a UTF-8 character
}

}  // namespace
}  // namespace ge::cli

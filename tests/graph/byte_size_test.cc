// Element counts and byte sizes never wrap: they are refused instead.
#include <catch2/catch.hpp>

#include <cstdint>

#include "ge/error.h"
#include "ge/tensor.h"
#include "graph/byte_size.h"

namespace ge::test {

using Catch::Matchers::Contains;

TEST_CASE("Checked element counts and byte sizes detect int64 overflow") {
  CHECK(CheckedNumElements(Shape{2, 3, 4}) == 24);
  CHECK(CheckedNumElements(Shape{}) == 1);
  CHECK(CheckedNumElements(Shape{int64_t{1} << 62, 2}) == std::nullopt);
  CHECK(CheckedNumElements(Shape{int64_t{1} << 62, int64_t{1} << 62, 0}) == 0);  // a zero wins over the overflow
  CHECK(CheckedByteSize(Shape{int64_t{1} << 61}, DataType::kFloat) == std::nullopt);
  CHECK(CheckedByteSize(Shape{int64_t{1} << 60}, DataType::kFloat) == int64_t{1} << 62);
  CHECK(CheckedByteSize(Shape{0, 5}, DataType::kDouble) == 0);
}

TEST_CASE("Shape::NumElements and Tensor::nbytes throw instead of wrapping") {
  CHECK_THROWS_WITH(Shape({int64_t{1} << 62, 4}).NumElements(), Contains("[4611686018427387904,4]"));
  CHECK_THROWS_AS(Tensor(DataType::kFloat, {int64_t{1} << 61}), Error);
}

TEST_CASE("A failed tensor allocation is a ge::Error naming bytes and shape, not std::bad_alloc") {
  // 2^62 bytes fit int64 but no machine's memory.
  try {
    Tensor(DataType::kFloat, {int64_t{1} << 60});
    FAIL("4 EiB were allocated");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()), Contains("4611686018427387904 bytes") && Contains("[1152921504606846976]"));
  }
}

}  // namespace ge::test

// In-place execution: elementwise steps write over an input at its last use,
// never over graph inputs, constants or values still needed; results match
// float64 references.
#include <catch2/catch.hpp>

#include <cmath>

#include "ge/builder.h"
#include "runtime/compiler.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::runtime::Storage;
using ge::runtime::StorageKind;

namespace {

const Storage& StorageOf(const ge::CompiledModel::Impl& impl, const std::string& value_name) {
  size_t id = 0;
  while (id < impl.values.size() && impl.values[id]->name() != value_name) ++id;
  INFO("value " << value_name);
  REQUIRE(id < impl.values.size());
  return impl.storage[id];
}

ge::Options SingleStream() { return {{"ge.enableSingleStream", "true"}}; }

float At(const ge::Tensor& t, int64_t i) { return t.data_as<const float>()[i]; }

}  // namespace

TEST_CASE("in place: an elementwise chain reuses one buffer", "[in_place]") {
  ge::GraphBuilder b("chain");
  ge::Value* x = b.Input("x", DataType::kFloat, {4, 16});
  ge::Tensor c = ge::test::RandomTensor({4, 16}, 5);
  ge::Value* hidden = b.Add(x, b.Constant("c", c), "hidden");
  ge::Value* relu = b.Relu(hidden, "relu");
  ge::Value* tanh = b.Tanh(relu, "tanh");
  b.Output(b.Softmax(tanh, -1, "out"));
  auto impl = ge::runtime::CompileGraph(b.Build(), SingleStream());

  CHECK(StorageOf(*impl, "hidden").kind == StorageKind::kArena);
  CHECK(StorageOf(*impl, "relu") == StorageOf(*impl, "hidden"));
  CHECK(StorageOf(*impl, "tanh") == StorageOf(*impl, "hidden"));
  CHECK(impl->memory.arena_bytes == 4 * 16 * 4);  // one buffer for the whole chain
  CHECK(impl->memory.lower_bound_bytes == impl->memory.arena_bytes);

  ge::CompiledModel model(std::move(impl));
  ge::Tensor input = ge::test::RandomTensor({4, 16}, 6);
  ge::Tensor out = model.Run({input})[0];
  for (int64_t row = 0; row < 4; ++row) {
    double t[16], sum = 0;
    for (int64_t j = 0; j < 16; ++j) {
      double h = double(At(input, row * 16 + j)) + double(At(c, row * 16 + j));
      t[j] = std::exp(std::tanh(h > 0 ? h : 0.0));
      sum += t[j];
    }
    for (int64_t j = 0; j < 16; ++j) CHECK(At(out, row * 16 + j) == Approx(t[j] / sum).margin(1e-6));
  }
}

TEST_CASE("in place: never over graph inputs, constants or values read later", "[in_place]") {
  ge::GraphBuilder b("guarded");
  ge::Value* x = b.Input("x", DataType::kFloat, {8});
  ge::Tensor c = ge::test::RandomTensor({8}, 7);
  ge::Value* from_input = b.Relu(x, "from_input");                   // x is the caller's
  ge::Value* sum = b.Add(b.Constant("c", c), from_input, "sum");     // c is the model's
  ge::Value* squashed = b.Tanh(sum, "squashed");                     // sum is read again below
  b.Output(b.Softmax(b.Mul(squashed, sum, "product"), -1, "out"));
  auto impl = ge::runtime::CompileGraph(b.Build(), SingleStream());

  CHECK(StorageOf(*impl, "c").kind == StorageKind::kConstant);
  CHECK(StorageOf(*impl, "from_input").kind == StorageKind::kArena);
  CHECK(StorageOf(*impl, "sum") == StorageOf(*impl, "from_input"));
  CHECK(StorageOf(*impl, "squashed") != StorageOf(*impl, "sum"));
  CHECK(StorageOf(*impl, "product") == StorageOf(*impl, "squashed"));

  ge::CompiledModel model(std::move(impl));
  ge::Tensor input = ge::test::RandomTensor({8}, 8);
  ge::Tensor before = input.Clone();
  ge::Tensor out = model.Run({input})[0];
  CHECK(ge::test::BitIdentical(input, before));
  double p[8], total = 0;
  for (int j = 0; j < 8; ++j) {
    double s = std::max(0.0, double(At(input, j))) + double(At(c, j));
    p[j] = std::exp(std::tanh(s) * s);
    total += p[j];
  }
  for (int j = 0; j < 8; ++j) CHECK(At(out, j) == Approx(p[j] / total).margin(1e-6));
  CHECK(ge::test::BitIdentical(model.Run({input})[0], out));  // the constant was not overwritten
}

TEST_CASE("in place: only over an operand of the output's shape", "[in_place]") {
  ge::GraphBuilder b("broadcast");
  ge::Value* x = b.Input("x", DataType::kFloat, {3, 4});
  ge::Value* y = b.Input("y", DataType::kFloat, {4});
  ge::Value* row = b.Softmax(y, -1, "row");        // [4], broadcast below
  ge::Value* full = b.Softmax(x, -1, "full");      // [3, 4]
  ge::Value* sum = b.Add(row, full, "sum");        // may take full's bytes, never row's
  b.Output(b.Softmax(sum, -1, "out"));
  auto impl = ge::runtime::CompileGraph(b.Build(), SingleStream());
  CHECK(StorageOf(*impl, "sum") == StorageOf(*impl, "full"));
  CHECK(StorageOf(*impl, "sum") != StorageOf(*impl, "row"));
}

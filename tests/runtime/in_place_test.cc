// In-place execution: elementwise steps write over an input at its last use,
// never over graph inputs, constants or values still needed; results match
// float64 references.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ge/builder.h"
#include "runtime/compile/compiler.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::runtime::Storage;
using ge::runtime::StorageKind;
using ge::test::StorageOf;

namespace {


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

// Every op the planner runs in place (storage_plan.cc), run once over its
// input's bytes and once with ge.exec.disableReuseMemory (no in-place): the
// kernels must give the same bits, i.e. tolerate an output that is an input.
TEST_CASE("in place: every in-place op gives the bits of a separate output", "[in_place]") {
  struct Case {
    std::string op;
    int inputs;
    DataType dtype;
  };
  std::vector<Case> cases;
  for (const char* op : {"Relu", "Abs", "Neg", "Sign", "Ceil", "Floor", "Round", "Sigmoid", "Tanh", "Erf", "Sqrt",
                         "Exp", "Log", "Reciprocal", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
                         "Asinh", "Acosh", "Atanh", "Gelu", "LeakyRelu", "Elu", "Selu", "Celu", "ThresholdedRelu",
                         "HardSigmoid", "HardSwish", "Mish", "Softplus", "Softsign", "Shrink"}) {
    cases.push_back({op, 1, DataType::kFloat});
  }
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum", "PRelu"}) {
    cases.push_back({op, 2, DataType::kFloat});
  }
  for (const char* op : {"Mod", "FloorMod", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"}) {
    cases.push_back({op, 2, DataType::kInt32});
  }
  cases.push_back({"Invert", 1, DataType::kInt32});
  for (const char* op : {"LogicalAnd", "LogicalOr", "LogicalXor"}) cases.push_back({op, 2, DataType::kBool});
  cases.push_back({"LogicalNot", 1, DataType::kBool});

  for (const Case& c : cases) {
    INFO(c.op);
    auto build = [&] {
      ge::GraphBuilder b("op");
      std::vector<ge::Value*> operands;
      for (int i = 0; i < c.inputs; ++i) {
        ge::Value* x = b.Input("x" + std::to_string(i), c.dtype, {2, 8});
        // Arena operands: a step computes them (from the caller's inputs).
        operands.push_back(c.dtype == DataType::kBool ? b.Op("LogicalNot", {x})[0]
                           : c.dtype == DataType::kFloat ? b.Softmax(x, -1)
                                                         : b.Op("Abs", {x})[0]);
      }
      ge::Value* y = b.Op(c.op, operands, {}, 1, "y")[0];
      b.Output(c.dtype == DataType::kBool ? b.Op("LogicalNot", {y})[0] : b.Op("Abs", {y})[0]);
      return b.Build();
    };
    auto in_place = ge::runtime::CompileGraph(build(), SingleStream());
    size_t y = 0;
    while (in_place->values[y]->name() != "y") ++y;
    const ge::runtime::Step& step = *std::find_if(in_place->steps.begin(), in_place->steps.end(),
                                                  [&](const ge::runtime::Step& s) { return s.outputs[0] == int(y); });
    CHECK(in_place->storage[y] == in_place->storage[step.inputs[0]]);
    ge::CompiledModel shared(std::move(in_place));
    auto separate = ge::CompiledModel::Compile(build(), {{"ge.exec.disableReuseMemory", "1"}});

    std::vector<ge::Tensor> inputs;
    for (int i = 0; i < c.inputs; ++i) {
      ge::Tensor t(c.dtype, {2, 8});
      for (int64_t k = 0; k < 16; ++k) {
        if (c.dtype == DataType::kFloat) t.data_as<float>()[k] = float(k % 7) - 3.0f + 0.25f * i;
        if (c.dtype == DataType::kInt32) t.data_as<int32_t>()[k] = int32_t(k % 5 + 1 + i);
        if (c.dtype == DataType::kBool) t.data_as<bool>()[k] = (k + i) % 3 == 0;
      }
      inputs.push_back(t);
    }
    CHECK(ge::test::BitIdentical(shared.Run(inputs)[0], separate->Run(inputs)[0]));
  }
}

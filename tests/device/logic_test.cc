// Comparisons, logical and bitwise ops, remainders, shifts, PRelu, the
// float16 and small-integer paths of the broadcasting binary kernel, and
// Select's three-way broadcasting, against float64 references.
#include <cmath>
#include <functional>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

// Element `out_index` of a tensor broadcast to the output (numpy rules).
double ReadBroadcast(const std::vector<double>& values, const Shape& shape, const std::vector<int64_t>& out_index) {
  std::vector<int64_t> dims = shape.dims(), index(dims.size());
  const size_t lead = out_index.size() - dims.size();
  for (size_t d = 0; d < dims.size(); ++d) index[d] = dims[d] == 1 ? 0 : out_index[lead + d];
  return values[Ravel(index, dims)];
}

std::vector<double> Reference(const std::vector<Tensor>& inputs, const Shape& out,
                              const std::function<double(const std::vector<double>&)>& fn) {
  std::vector<std::vector<double>> values;
  for (const Tensor& t : inputs) values.push_back(ToDoubles(t));
  std::vector<double> result;
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const auto index = Unravel(i, out.dims());
    std::vector<double> args;
    for (size_t k = 0; k < inputs.size(); ++k) args.push_back(ReadBroadcast(values[k], inputs[k].shape(), index));
    result.push_back(fn(args));
  }
  return result;
}

Tensor Run(const std::string& op, const std::vector<Tensor>& inputs, DataType out_dtype, const Shape& out) {
  Graph g;
  std::vector<Value*> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    values.push_back(g.AddInput("in" + std::to_string(i), inputs[i].dtype(), inputs[i].shape()));
  }
  Node* node = g.AddNode(op, "op", values);
  SetOutput(node, 0, out_dtype, out);
  return RunCpuKernel(*node, inputs)[0];
}

Tensor Bools(Shape shape, std::mt19937& rng) {
  Tensor t(DataType::kBool, std::move(shape));
  std::bernoulli_distribution coin;
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data_as<bool>()[i] = coin(rng);
  return t;
}

}  // namespace

TEST_CASE("comparisons broadcast and give bool", "[device][logic]") {
  std::mt19937 rng(11);
  const std::vector<std::pair<std::string, std::function<bool(double, double)>>> ops = {
      {"Equal", std::equal_to<double>()},      {"Greater", std::greater<double>()},
      {"Less", std::less<double>()},           {"GreaterEqual", std::greater_equal<double>()},
      {"LessEqual", std::less_equal<double>()},
  };
  for (DataType dtype : {DataType::kFloat, DataType::kInt32, DataType::kUInt8, DataType::kInt64}) {
    // Few distinct values, so that equality occurs.
    Tensor a = RandomTensor(dtype, {4, 1, 5}, rng, 0, 4);
    Tensor b = RandomTensor(dtype, {3, 1}, rng, 0, 4);
    for (const auto& [op, fn] : ops) {
      INFO(op << " " << DataTypeName(dtype));
      const Shape out{4, 3, 5};
      CheckClose(Run(op, {a, b}, DataType::kBool, out), Reference({a, b}, out, [&](auto& v) { return fn(v[0], v[1]); }),
                 0, 0);
    }
  }
}

TEST_CASE("logical ops on bool", "[device][logic]") {
  std::mt19937 rng(12);
  Tensor a = Bools({2, 3, 4}, rng), b = Bools({3, 1}, rng);
  const Shape out{2, 3, 4};
  CheckClose(Run("LogicalAnd", {a, b}, DataType::kBool, out), Reference({a, b}, out, [](auto& v) { return double(v[0] && v[1]); }), 0, 0);
  CheckClose(Run("LogicalOr", {a, b}, DataType::kBool, out), Reference({a, b}, out, [](auto& v) { return double(v[0] || v[1]); }), 0, 0);
  CheckClose(Run("LogicalXor", {a, b}, DataType::kBool, out), Reference({a, b}, out, [](auto& v) { return double(v[0] != v[1]); }), 0, 0);
  CheckClose(Run("Equal", {a, b}, DataType::kBool, out), Reference({a, b}, out, [](auto& v) { return double(v[0] == v[1]); }), 0, 0);
}

TEST_CASE("remainders: Mod truncates, FloorMod follows the divisor", "[device][logic]") {
  Tensor a = Tensor::FromVector<int32_t>(DataType::kInt32, {6}, {7, -7, 7, -7, 0, -128});
  Tensor b = Tensor::FromVector<int32_t>(DataType::kInt32, {6}, {3, 3, -3, -3, 5, -1});
  CheckClose(Run("Mod", {a, b}, DataType::kInt32, {6}), {1, -1, 1, -1, 0, 0}, 0, 0);
  CheckClose(Run("FloorMod", {a, b}, DataType::kInt32, {6}), {1, 2, -2, -1, 0, 0}, 0, 0);
  Tensor fa = Tensor::FromVector<float>(DataType::kFloat, {4}, {5.5f, -5.5f, 5.5f, -5.5f});
  Tensor fb = Tensor::FromVector<float>(DataType::kFloat, {4}, {2.f, 2.f, -2.f, -2.f});
  CheckClose(Run("Mod", {fa, fb}, DataType::kFloat, {4}), {1.5, -1.5, 1.5, -1.5}, 0, 0);
  CheckClose(Run("FloorMod", {fa, fb}, DataType::kFloat, {4}), {1.5, 0.5, -0.5, -1.5}, 0, 0);
  Tensor u = Tensor::FromVector<uint8_t>(DataType::kUInt8, {2}, {200, 7});
  Tensor zero = Tensor::FromVector<uint8_t>(DataType::kUInt8, {2}, {3, 0});
  CHECK_THROWS_WITH(Run("FloorMod", {u, zero}, DataType::kUInt8, {2}), Catch::Contains("division by zero"));
}

TEST_CASE("bitwise ops and shifts on unsigned and signed ints", "[device][logic]") {
  Tensor a = Tensor::FromVector<uint16_t>(DataType::kUInt16, {4}, {0x00F0, 0xFFFF, 1, 0x8000});
  Tensor b = Tensor::FromVector<uint16_t>(DataType::kUInt16, {4}, {0x0F0F, 0x00FF, 15, 16});
  CheckClose(Run("BitwiseAnd", {a, b}, DataType::kUInt16, {4}), {0x0000, 0x00FF, 1, 0}, 0, 0);
  CheckClose(Run("BitwiseOr", {a, b}, DataType::kUInt16, {4}), {0x0FFF, 0xFFFF, 15, 0x8010}, 0, 0);
  CheckClose(Run("BitwiseXor", {a, b}, DataType::kUInt16, {4}), {0x0FFF, 0xFF00, 14, 0x8010}, 0, 0);
  Tensor shift = Tensor::FromVector<uint16_t>(DataType::kUInt16, {4}, {4, 8, 15, 16});
  CheckClose(Run("LeftShift", {a, shift}, DataType::kUInt16, {4}), {0x0F00, 0xFF00, 0x8000, 0}, 0, 0);
  CheckClose(Run("RightShift", {a, shift}, DataType::kUInt16, {4}), {0x000F, 0x00FF, 0, 0}, 0, 0);
  Tensor s = Tensor::FromVector<int8_t>(DataType::kInt8, {2}, {-16, 16});
  Tensor two = Tensor::FromVector<int8_t>(DataType::kInt8, {1}, {2});
  CheckClose(Run("RightShift", {s, two}, DataType::kInt8, {2}), {-4, 4}, 0, 0);
}

TEST_CASE("binary arithmetic on float16 and small ints", "[device][logic]") {
  std::mt19937 rng(13);
  Tensor a32 = RandomTensor(DataType::kFloat, {5, 6}, rng, -2, 2);
  Tensor b32 = RandomTensor(DataType::kFloat, {6}, rng, 0.5, 2);
  Graph g;
  auto to_half = [](const Tensor& t) {
    Tensor h(DataType::kFloat16, t.shape());
    for (int64_t i = 0; i < t.num_elements(); ++i) h.data_as<_Float16>()[i] = static_cast<_Float16>(t.data_as<float>()[i]);
    return h;
  };
  Tensor a = to_half(a32), b = to_half(b32);
  const Shape out{5, 6};
  CheckClose(Run("Div", {a, b}, DataType::kFloat16, out), Reference({a, b}, out, [](auto& v) { return v[0] / v[1]; }), 1e-3, 1e-3);
  CheckClose(Run("PRelu", {a, b}, DataType::kFloat16, out),
             Reference({a, b}, out, [](auto& v) { return v[0] < 0 ? v[0] * v[1] : v[0]; }), 1e-3, 1e-3);
  CheckClose(Run("Maximum", {a, b}, DataType::kFloat16, out), Reference({a, b}, out, [](auto& v) { return std::max(v[0], v[1]); }), 0, 0);

  Tensor u = Tensor::FromVector<uint8_t>(DataType::kUInt8, {3}, {250, 3, 7});
  Tensor v = Tensor::FromVector<uint8_t>(DataType::kUInt8, {3}, {10, 5, 2});
  CheckClose(Run("Add", {u, v}, DataType::kUInt8, {3}), {4, 8, 9}, 0, 0);  // wraps like numpy
  CheckClose(Run("Sub", {u, v}, DataType::kUInt8, {3}), {240, 254, 5}, 0, 0);
  CheckClose(Run("Pow", {v, Tensor::FromVector<uint8_t>(DataType::kUInt8, {1}, {2})}, DataType::kUInt8, {3}), {100, 25, 4}, 0, 0);
}

TEST_CASE("Select broadcasts condition, x1 and x2", "[device][logic]") {
  std::mt19937 rng(14);
  struct Combo {
    Shape c, a, b, out;
  };
  for (const Combo& combo : std::vector<Combo>{{{2, 3}, {2, 3}, {2, 3}, {2, 3}},
                                               {{3, 1}, {1, 4}, {}, {3, 4}},
                                               {{1, 200, 300}, {2, 1, 300}, {200, 1}, {2, 200, 300}}}) {
    INFO(combo.out.ToString());
    Tensor c = Bools(combo.c, rng);
    for (DataType dtype : {DataType::kFloat, DataType::kInt64, DataType::kUInt8}) {
      Tensor a = RandomTensor(dtype, combo.a, rng, 0, 100), b = RandomTensor(dtype, combo.b, rng, 0, 100);
      CheckClose(Run("Select", {c, a, b}, dtype, combo.out),
                 Reference({c, a, b}, combo.out, [](auto& v) { return v[0] != 0 ? v[1] : v[2]; }), 0, 0);
    }
  }
  Tensor c = Bools({2}, rng);
  Tensor a = RandomTensor(DataType::kFloat, {2}, rng), b = RandomTensor(DataType::kInt32, {2}, rng);
  CHECK_THROWS_WITH(Run("Select", {c, a, b}, DataType::kFloat, {2}), Catch::Contains("'op'") && Catch::Contains("dtypes"));
}

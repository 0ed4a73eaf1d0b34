// The dtypes added to the CPU kernels for ONNX conformance: the direct
// float64/float16/bfloat16 convolutions and the direct float64, half and
// integer matmul against float64 loops written here; the bfloat16/float16 (and
// small-integer) paths of the comparing, reducing and normalizing kernels
// against the same op run in float64 on the same values. The inputs are
// multiples of 1/8 (or integers), exactly representable in every dtype under
// test, so both runs see identical values and only the result rounding (and
// the half types' float arithmetic) differs.
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

const std::vector<DataType> kHalfTypes = {DataType::kFloat16, DataType::kBFloat16};

// Half an ulp of the dtype's result rounding, times a small factor for the
// float arithmetic of the half types; 0 (exact) for the integers.
double Tolerance(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat16: return 2e-3;
    case DataType::kBFloat16: return 1e-2;
    case DataType::kDouble: return 1e-12;
    default: return 0.0;
  }
}

bool IsIntegral(DataType dtype) {
  return dtype != DataType::kFloat && dtype != DataType::kDouble && dtype != DataType::kFloat16 &&
         dtype != DataType::kBFloat16;
}

// n values in [lo, hi): integers for integral dtypes, else multiples of 1/8.
std::vector<double> Values(int64_t n, std::mt19937& rng, double lo, double hi, bool integral) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> out(static_cast<size_t>(n));
  for (double& v : out) v = integral ? std::floor(dist(rng)) : std::floor(dist(rng) * 8) / 8;
  return out;
}

template <typename T>
void Store(Tensor& t, const std::vector<double>& values) {
  for (size_t i = 0; i < values.size(); ++i) t.data_as<T>()[i] = static_cast<T>(values[i]);
}

// A tensor holding `values` exactly (the caller keeps them representable).
Tensor FromDoubles(DataType dtype, const Shape& shape, const std::vector<double>& values) {
  Tensor t(dtype, shape);
  REQUIRE(static_cast<int64_t>(values.size()) == t.num_elements());
  switch (dtype) {
    case DataType::kFloat: Store<float>(t, values); break;
    case DataType::kDouble: Store<double>(t, values); break;
    case DataType::kFloat16: Store<_Float16>(t, values); break;
    case DataType::kInt8: Store<int8_t>(t, values); break;
    case DataType::kUInt8: Store<uint8_t>(t, values); break;
    case DataType::kInt16: Store<int16_t>(t, values); break;
    case DataType::kUInt16: Store<uint16_t>(t, values); break;
    case DataType::kInt32: Store<int32_t>(t, values); break;
    case DataType::kUInt32: Store<uint32_t>(t, values); break;
    case DataType::kInt64: Store<int64_t>(t, values); break;
    case DataType::kUInt64: Store<uint64_t>(t, values); break;
    case DataType::kBFloat16:
      // The upper half of the float32: exact for values with 8 significant bits.
      for (size_t i = 0; i < values.size(); ++i) {
        const auto f = static_cast<float>(values[i]);
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        REQUIRE((bits & 0xFFFF) == 0);
        t.data_as<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
      }
      break;
    default: FAIL("FromDoubles: unsupported dtype " << DataTypeName(dtype));
  }
  return t;
}

struct Operand {
  Shape shape;
  std::vector<double> values;
  std::optional<DataType> dtype;  // absent: the dtype under test
};

using SetAttrs = std::function<void(Node&)>;

// Builds the op with its inputs in `dtype`, fills the schema's attribute
// defaults, infers the outputs (seeing every input's values, so k, depth, ...
// are known), checks the schema accepts the dtypes and runs the CPU kernel.
std::vector<Tensor> RunOp(const std::string& op, DataType dtype, const std::vector<Operand>& operands,
                          const SetAttrs& set_attrs, size_t num_outputs = 1) {
  Graph g;
  std::vector<Value*> inputs;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < operands.size(); ++i) {
    const DataType d = operands[i].dtype.value_or(dtype);
    tensors.push_back(FromDoubles(d, operands[i].shape, operands[i].values));
    inputs.push_back(g.AddInput("in" + std::to_string(i), d, operands[i].shape));
  }
  Node* node = g.AddNode(op, "under_test", inputs, num_outputs);
  set_attrs(*node);
  const OpSchema* schema = OpRegistry::Global().Find(op);
  REQUIRE(schema != nullptr);
  schema->NormalizeAttrs(*node);
  InferContext ctx(*node, [&](size_t i) { return &tensors[i]; });
  schema->infer()(ctx);
  schema->Check(*node);
  return RunCpuKernel(*node, tensors);
}

// Runs the op in `dtype` and in float64 on the same values: outputs in the
// tested dtype agree within its tolerance, the others (indices) exactly.
void CheckAgainstDouble(const std::string& op, DataType dtype, const std::vector<Operand>& operands,
                        const SetAttrs& set_attrs, size_t num_outputs = 1) {
  INFO(op << " in " << DataTypeName(dtype));
  const std::vector<Tensor> actual = RunOp(op, dtype, operands, set_attrs, num_outputs);
  const std::vector<Tensor> reference = RunOp(op, DataType::kDouble, operands, set_attrs, num_outputs);
  REQUIRE(actual.size() == reference.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("output " << i);
    const bool typed = actual[i].dtype() == dtype;
    CHECK(actual[i].dtype() == (typed ? dtype : reference[i].dtype()));
    const double tol = typed ? Tolerance(dtype) : 0.0;
    CheckClose(actual[i], ToDoubles(reference[i]), tol, tol);
  }
}

Operand Typed(Shape shape, std::mt19937& rng, double lo = -4, double hi = 4, bool integral = false) {
  const int64_t n = shape.NumElements();
  return {std::move(shape), Values(n, rng, lo, hi, integral), std::nullopt};
}

Operand Fixed(DataType dtype, Shape shape, std::vector<double> values) {
  return {std::move(shape), std::move(values), dtype};
}

// --- convolution -----------------------------------------------------------

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

struct ConvCase {
  std::string name;
  std::vector<int64_t> x, filter;  // NC + spatial; filter [Cout, Cin/g, k...] or transposed [Cin, Cout/g, k...]
  int64_t groups;
  std::vector<int64_t> stride, dilation, pads, output_padding;  // pads: (begin, end) per axis
  bool bias;
};

// Output spatial dims of the case (ONNX formulas).
std::vector<int64_t> OutputDims(const ConvCase& c, bool transposed) {
  const size_t spatial = c.x.size() - 2;
  const int64_t out_channels = transposed ? c.filter[1] * c.groups : c.filter[0];
  std::vector<int64_t> dims = {c.x[0], out_channels};
  for (size_t a = 0; a < spatial; ++a) {
    const int64_t span = (c.filter[a + 2] - 1) * c.dilation[a] + 1;
    const int64_t pads = c.pads[2 * a] + c.pads[2 * a + 1];
    dims.push_back(transposed ? (c.x[a + 2] - 1) * c.stride[a] + span - pads + c.output_padding[a]
                              : (c.x[a + 2] + pads - span) / c.stride[a] + 1);
  }
  return dims;
}

// Convolution (gather form) or transposed convolution (scatter form) in float64.
std::vector<double> ReferenceConv(const ConvCase& c, bool transposed, const std::vector<double>& x,
                                  const std::vector<double>& w, const std::vector<double>& bias) {
  const std::vector<int64_t> y_dims = OutputDims(c, transposed);
  const size_t spatial = c.x.size() - 2;
  const int64_t in_group = c.x[1] / c.groups, out_group = y_dims[1] / c.groups;
  std::vector<double> y(static_cast<size_t>(Product(y_dims)));
  for (size_t i = 0; i < y.size(); ++i) y[i] = bias.empty() ? 0.0 : bias[Unravel(static_cast<int64_t>(i), y_dims)[1]];
  const std::vector<int64_t> taps(c.filter.begin() + 2, c.filter.end());
  for (int64_t xi = 0; xi < Product(c.x); ++xi) {
    const std::vector<int64_t> xp = Unravel(xi, c.x);  // n, ic, spatial...
    const int64_t group = xp[1] / in_group;
    for (int64_t ocg = 0; ocg < out_group; ++ocg) {
      const int64_t oc = group * out_group + ocg;
      for (int64_t t = 0; t < Product(taps); ++t) {
        const std::vector<int64_t> k = Unravel(t, taps);
        // The y element this (x element, tap) pair feeds. Convolution: x position = y position * stride - pad
        // + k * dilation, solved for y; transposed: y position = x position * stride - pad + k * dilation.
        std::vector<int64_t> yp = {xp[0], oc};
        bool inside = true;
        for (size_t a = 0; a < spatial; ++a) {
          if (transposed) {
            const int64_t o = xp[a + 2] * c.stride[a] - c.pads[2 * a] + k[a] * c.dilation[a];
            inside = inside && o >= 0 && o < y_dims[a + 2];
            yp.push_back(o);
          } else {
            const int64_t scaled = xp[a + 2] + c.pads[2 * a] - k[a] * c.dilation[a];
            inside = inside && scaled >= 0 && scaled % c.stride[a] == 0 && scaled / c.stride[a] < y_dims[a + 2];
            yp.push_back(scaled / c.stride[a]);
          }
        }
        if (!inside) continue;
        std::vector<int64_t> wp = {transposed ? xp[1] : oc, transposed ? ocg : xp[1] % in_group};
        wp.insert(wp.end(), k.begin(), k.end());
        y[Ravel(yp, y_dims)] += x[xi] * w[Ravel(wp, c.filter)];
      }
    }
  }
  return y;
}

void CheckConv(const ConvCase& c, bool transposed, DataType dtype, std::mt19937& rng) {
  INFO(c.name << (transposed ? " transposed" : "") << " in " << DataTypeName(dtype));
  const size_t spatial = c.x.size() - 2;
  const std::vector<int64_t> y_dims = OutputDims(c, transposed);
  const Operand x = Typed(Shape(c.x), rng, -2, 2);
  const Operand w = Typed(Shape(c.filter), rng, -2, 2);
  const Operand b = Typed(Shape({y_dims[1]}), rng);
  std::vector<Operand> operands = {x, w};
  if (c.bias) operands.push_back(b);
  if (transposed) {
    operands.insert(operands.begin(),
                    Fixed(DataType::kInt64, Shape({static_cast<int64_t>(y_dims.size())}),
                          std::vector<double>(y_dims.begin(), y_dims.end())));
  }
  auto with_nc = [](const std::vector<int64_t>& v) {
    std::vector<int64_t> out = {1, 1};
    out.insert(out.end(), v.begin(), v.end());
    return out;
  };
  const std::string op = std::string(spatial == 3 ? "Conv3D" : "Conv2D") + (transposed ? "Transpose" : "");
  const std::vector<Tensor> out = RunOp(op, dtype, operands, [&](Node& node) {
    node.attrs().Set("strides", with_nc(c.stride));
    node.attrs().Set("dilations", with_nc(c.dilation));
    node.attrs().Set("pads", c.pads);
    node.attrs().Set("groups", c.groups);
    if (transposed) node.attrs().Set("output_padding", with_nc(c.output_padding));
  });
  REQUIRE(out[0].dtype() == dtype);
  REQUIRE(out[0].shape() == Shape(y_dims));
  const double tol = Tolerance(dtype);
  CheckClose(out[0], ReferenceConv(c, transposed, x.values, w.values, c.bias ? b.values : std::vector<double>{}),
             tol, tol);
}

// --- matmul ------------------------------------------------------------------

// numpy matmul of operands of rank >= 2 (with optional transposes of the last
// two dims and a bias [N]) in float64; y_shape is the broadcast result.
std::vector<double> ReferenceMatMul(const Shape& a_shape, const std::vector<double>& a, bool ta, const Shape& b_shape,
                                    const std::vector<double>& b, bool tb, const std::vector<double>& bias,
                                    const Shape& y_shape) {
  const size_t ar = a_shape.rank();
  const int64_t k = ta ? a_shape.dim(ar - 2) : a_shape.dim(ar - 1);
  std::vector<double> y;
  for (int64_t flat = 0; flat < y_shape.NumElements(); ++flat) {
    const std::vector<int64_t> yp = Unravel(flat, y_shape.dims());
    const int64_t i = yp[yp.size() - 2], j = yp.back();
    // Batch index of an operand: its trailing batch dims, broadcast where they are 1.
    auto batch_index = [&](const Shape& s, int64_t row, int64_t col) {
      std::vector<int64_t> p(s.rank());
      for (size_t d = 0; d + 2 < s.rank(); ++d) {
        p[d] = s.dim(d) == 1 ? 0 : yp[yp.size() - s.rank() + d];
      }
      p[s.rank() - 2] = row;
      p[s.rank() - 1] = col;
      return Ravel(p, s.dims());
    };
    double acc = bias.empty() ? 0.0 : bias[j];
    for (int64_t p = 0; p < k; ++p) {
      acc += a[batch_index(a_shape, ta ? p : i, ta ? i : p)] * b[batch_index(b_shape, tb ? j : p, tb ? p : j)];
    }
    y.push_back(acc);
  }
  return y;
}

void CheckMatMul(const std::string& op, DataType dtype, const Shape& a_shape, bool ta, const Shape& b_shape, bool tb,
                 bool bias, std::mt19937& rng) {
  INFO(op << " " << a_shape.ToString() << (ta ? "^T" : "") << " @ " << b_shape.ToString() << (tb ? "^T" : "")
          << (bias ? " + bias" : "") << " in " << DataTypeName(dtype));
  const bool integral = IsIntegral(dtype);
  const bool is_unsigned = dtype == DataType::kUInt32 || dtype == DataType::kUInt64;
  const double lo = is_unsigned ? 0 : -4;
  const Operand a = Typed(a_shape, rng, lo, 4, integral);
  const Operand b = Typed(b_shape, rng, lo, 4, integral);
  const int64_t n = tb ? b_shape.dim(b_shape.rank() - 2) : b_shape.dim(b_shape.rank() - 1);
  const Operand bias_operand = Typed(Shape({n}), rng, lo, 4, integral);
  std::vector<Operand> operands = {a, b};
  if (bias) operands.push_back(bias_operand);
  const bool batch = op == "BatchMatMulV2";
  const std::vector<Tensor> out = RunOp(op, dtype, operands, [&](Node& node) {
    node.attrs().Set(batch ? "adj_x1" : "transpose_x1", ta);
    node.attrs().Set(batch ? "adj_x2" : "transpose_x2", tb);
  });
  REQUIRE(out[0].dtype() == dtype);
  // numpy's 1-D rules: [K] is a [1, K] row on the left, a [K, 1] column on the
  // right, and that dim is dropped from y (which leaves y's element order alone).
  std::vector<int64_t> y_dims = out[0].shape().dims();
  Shape a_ref = a_shape, b_ref = b_shape;
  if (a_shape.rank() == 1) {
    a_ref = Shape{1, a_shape.dim(0)};
    y_dims.insert(y_dims.end() - (b_shape.rank() == 1 ? 0 : 1), 1);
  }
  if (b_shape.rank() == 1) {
    b_ref = Shape{b_shape.dim(0), 1};
    y_dims.push_back(1);
  }
  const double tol = Tolerance(dtype);
  const std::vector<double> bias_values = bias ? bias_operand.values : std::vector<double>{};
  CheckClose(out[0], ReferenceMatMul(a_ref, a.values, ta, b_ref, b.values, tb, bias_values, Shape(y_dims)), tol, tol);
}

}  // namespace

TEST_CASE("Conv2D and Conv3D in float64, float16 and bfloat16 match float64 loops", "[device][dtype][conv]") {
  std::mt19937 rng(101);
  const std::vector<ConvCase> cases = {
      {"3x3 same, bias", {2, 3, 7, 6}, {4, 3, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, {0, 0}, true},
      {"groups, stride 2, dilation 2, asymmetric pads", {1, 4, 9, 8}, {6, 2, 3, 2}, 2, {2, 2}, {2, 1}, {0, 1, 2, 1},
       {0, 0}, false},
      {"depthwise", {1, 4, 5, 5}, {4, 1, 3, 3}, 4, {1, 1}, {1, 1}, {1, 1, 1, 1}, {0, 0}, true},
      {"3-D", {1, 2, 4, 5, 4}, {3, 2, 2, 3, 2}, 1, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 1, 0, 1}, {0, 0, 0}, true},
  };
  for (DataType dtype : {DataType::kDouble, DataType::kFloat16, DataType::kBFloat16}) {
    for (const ConvCase& c : cases) CheckConv(c, /*transposed=*/false, dtype, rng);
  }
}

TEST_CASE("Conv2DTranspose and Conv3DTranspose in float64, float16 and bfloat16 match scatter-add loops",
          "[device][dtype][conv]") {
  std::mt19937 rng(102);
  const std::vector<ConvCase> cases = {
      {"stride 2, output_padding 1, bias", {1, 4, 4, 5}, {4, 3, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
      {"groups 2, dilation 2, asymmetric pads", {2, 4, 3, 3}, {4, 2, 2, 3}, 2, {3, 1}, {2, 2}, {1, 0, 0, 2}, {2, 0},
       false},
      {"3-D", {1, 2, 3, 3, 2}, {2, 2, 2, 2, 3}, 1, {2, 1, 2}, {1, 1, 1}, {0, 0, 1, 0, 0, 1}, {1, 0, 0}, true},
  };
  for (DataType dtype : {DataType::kDouble, DataType::kFloat16, DataType::kBFloat16}) {
    for (const ConvCase& c : cases) CheckConv(c, /*transposed=*/true, dtype, rng);
  }
}

TEST_CASE("MatMulV2 and BatchMatMulV2 in float64, halves and 32/64-bit integers match float64 loops",
          "[device][dtype][matmul]") {
  std::mt19937 rng(103);
  for (DataType dtype : {DataType::kDouble, DataType::kFloat16, DataType::kBFloat16, DataType::kInt32,
                         DataType::kInt64, DataType::kUInt32, DataType::kUInt64}) {
    CheckMatMul("MatMulV2", dtype, Shape{5, 7}, false, Shape{7, 6}, false, true, rng);
    CheckMatMul("MatMulV2", dtype, Shape{7, 5}, true, Shape{6, 7}, true, false, rng);
    CheckMatMul("BatchMatMulV2", dtype, Shape{2, 1, 3, 4}, false, Shape{3, 4, 5}, false, false, rng);
    CheckMatMul("BatchMatMulV2", dtype, Shape{3, 4, 2}, true, Shape{5, 4}, true, true, rng);
    CheckMatMul("BatchMatMulV2", dtype, Shape{4}, false, Shape{2, 4, 3}, false, false, rng);
    CheckMatMul("BatchMatMulV2", dtype, Shape{2, 3, 4}, false, Shape{4}, false, false, rng);
  }
}

TEST_CASE("Integer matmul wraps around like two's complement", "[device][dtype][matmul]") {
  const std::vector<Tensor> out =
      RunOp("MatMulV2", DataType::kInt32, {Fixed(DataType::kInt32, Shape{1, 2}, {65536, 65536}),
                                           Fixed(DataType::kInt32, Shape{2, 1}, {32768, 32768})},
            [](Node&) {});
  // 2 * 2^31 = 2^32 wraps to 0.
  CheckClose(out[0], {0}, 0, 0);
}

TEST_CASE("Conv and matmul refuse mixed dtypes naming the node", "[device][dtype]") {
  Graph g;
  Node* node = g.AddNode("MatMulV2", "mixed",
                         {g.AddInput("a", DataType::kDouble, Shape{2, 2}),
                          g.AddInput("b", DataType::kFloat, Shape{2, 2})});
  node->attrs().Set("transpose_x1", false);
  node->attrs().Set("transpose_x2", false);
  node->attrs().Set("offset_x", int64_t{0});
  SetOutput(node, 0, DataType::kDouble, Shape{2, 2});
  CHECK_THROWS_WITH(CreateCpuKernel(*node), Catch::Contains("mixed") && Catch::Contains("float64"));
}

TEST_CASE("TopKV2, ArgMaxV2, ArgMinV2 in bfloat16 agree with float64", "[device][dtype][topk]") {
  std::mt19937 rng(104);
  const Operand x = Typed(Shape{3, 7}, rng);
  for (bool largest : {true, false}) {
    CheckAgainstDouble("TopKV2", DataType::kBFloat16, {x, Fixed(DataType::kInt64, Shape{1}, {4})},
                       [&](Node& node) {
                         node.attrs().Set("dim", int64_t{1});
                         node.attrs().Set("largest", largest);
                       },
                       2);
  }
  for (const char* op : {"ArgMaxV2", "ArgMinV2"}) {
    for (bool last : {false, true}) {
      CheckAgainstDouble(op, DataType::kBFloat16, {x, Fixed(DataType::kInt64, Shape{}, {0})},
                         [&](Node& node) { node.attrs().Set("select_last_index", last); });
    }
  }
}

TEST_CASE("Cumsum, ScatterElements and ScatterNdUpdate reductions, OneHot and Unique in bfloat16",
          "[device][dtype][index]") {
  std::mt19937 rng(105);
  for (bool exclusive : {false, true}) {
    CheckAgainstDouble("Cumsum", DataType::kBFloat16, {Typed(Shape{3, 5}, rng), Fixed(DataType::kInt32, Shape{}, {1})},
                       [&](Node& node) {
                         node.attrs().Set("exclusive", exclusive);
                         node.attrs().Set("reverse", !exclusive);
                       });
  }
  for (const std::string reduction : {"add", "mul", "max", "min"}) {
    INFO(reduction);
    CheckAgainstDouble("ScatterElements", DataType::kBFloat16,
                       {Typed(Shape{2, 4}, rng), Fixed(DataType::kInt64, Shape{2, 3}, {0, 3, 0, 1, 1, -1}),
                        Typed(Shape{2, 3}, rng, -2, 2)},
                       [&](Node& node) {
                         node.attrs().Set("axis", int64_t{1});
                         node.attrs().Set("reduction", reduction);
                       });
    CheckAgainstDouble("ScatterNdUpdate", DataType::kBFloat16,
                       {Typed(Shape{3, 2}, rng), Fixed(DataType::kInt64, Shape{3, 1}, {2, 0, 2}),
                        Typed(Shape{3, 2}, rng, -2, 2)},
                       [&](Node& node) { node.attrs().Set("reduction", reduction); });
  }
  // bfloat16 indices are truncated like the other float index types.
  CheckAgainstDouble("OneHot", DataType::kBFloat16,
                     {Operand{Shape{4}, {0, 2.5, -1, 7}, std::nullopt}, Fixed(DataType::kInt64, Shape{}, {4}),
                      Fixed(DataType::kFloat, Shape{}, {5}), Fixed(DataType::kFloat, Shape{}, {-1})},
                     [](Node& node) { node.attrs().Set("axis", int64_t{-1}); });
  const Operand repeated{Shape{8}, {1.5, -2, 1.5, 0, -2, 3, 0.125, 1.5}, std::nullopt};
  for (bool sorted : {false, true}) {
    CheckAgainstDouble("Unique", DataType::kBFloat16, {repeated},
                       [&](Node& node) { node.attrs().Set("sorted", sorted); }, 4);
  }
}

TEST_CASE("Range in float16 and bfloat16 agrees with float64", "[device][dtype][generator]") {
  for (DataType dtype : kHalfTypes) {
    CheckAgainstDouble("Range", dtype,
                       {Operand{Shape{}, {-1.5}, std::nullopt}, Operand{Shape{}, {3}, std::nullopt},
                        Operand{Shape{}, {0.25}, std::nullopt}},
                       [](Node&) {});
  }
}

TEST_CASE("Reductions in float16, bfloat16 and 8/16-bit integers agree with float64", "[device][dtype][reduce]") {
  std::mt19937 rng(106);
  const Operand floats = Typed(Shape{3, 4, 5}, rng, 0.25, 2);  // positive: LogSum and L2 stay finite
  for (const char* op : {"ReduceSumD", "ReduceMeanD", "ReduceMaxD", "ReduceMinD", "ReduceProdD", "ReduceL1D",
                         "ReduceL2D", "ReduceSumSquareD", "ReduceLogSumD", "ReduceLogSumExpD"}) {
    for (DataType dtype : kHalfTypes) {
      CheckAgainstDouble(op, dtype, {floats}, [](Node& node) {
        node.attrs().Set("axes", std::vector<int64_t>{0, 2});
        node.attrs().Set("keep_dims", true);
      });
    }
  }
  // Integers reduce exactly; small values keep sums and products in range.
  const Operand ints = Typed(Shape{3, 4}, rng, 0, 4, /*integral=*/true);
  for (const char* op : {"ReduceSumD", "ReduceMaxD", "ReduceMinD", "ReduceProdD"}) {
    for (DataType dtype : {DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kUInt16}) {
      CheckAgainstDouble(op, dtype, {ints}, [](Node& node) { node.attrs().Set("axes", std::vector<int64_t>{1}); });
    }
  }
  CheckAgainstDouble("ReduceSum", DataType::kBFloat16, {floats, Fixed(DataType::kInt64, Shape{1}, {1})},
                     [](Node&) {});
}

TEST_CASE("Pooling in float16 and bfloat16 agrees with float64", "[device][dtype][pool]") {
  std::mt19937 rng(107);
  const Operand x = Typed(Shape{1, 2, 6, 7}, rng);
  auto window = [](Node& node) {
    node.attrs().Set("ksize", std::vector<int64_t>{1, 1, 3, 2});
    node.attrs().Set("strides", std::vector<int64_t>{1, 1, 2, 2});
    node.attrs().Set("pads", std::vector<int64_t>{1, 1, 0, 1});
  };
  for (DataType dtype : kHalfTypes) {
    CheckAgainstDouble("MaxPoolV3", dtype, {x}, window);
    CheckAgainstDouble("MaxPoolWithArgmax", dtype, {x}, window, 2);
    for (bool exclusive : {true, false}) {
      CheckAgainstDouble("AvgPoolV2", dtype, {x}, [&](Node& node) {
        window(node);
        node.attrs().Set("exclusive", exclusive);
      });
    }
  }
}

TEST_CASE("BatchNorm, LayerNorm, InstanceNorm and LRN in float16 and bfloat16 agree with float64",
          "[device][dtype][norm]") {
  std::mt19937 rng(108);
  const Operand x = Typed(Shape{2, 3, 4, 5}, rng);
  const Shape channels{3};
  for (DataType dtype : kHalfTypes) {
    CheckAgainstDouble("BatchNorm", dtype,
                       {x, Typed(channels, rng), Typed(channels, rng), Typed(channels, rng),
                        Typed(channels, rng, 0.5, 2)},
                       [](Node& node) { node.attrs().Set("epsilon", 1e-3f); });
    CheckAgainstDouble("LayerNorm", dtype, {x, Typed(Shape{4, 5}, rng), Typed(Shape{4, 5}, rng)},
                       [](Node& node) {
                         node.attrs().Set("begin_norm_axis", int64_t{2});
                         node.attrs().Set("begin_params_axis", int64_t{2});
                         node.attrs().Set("epsilon", 1e-5f);
                       },
                       3);
    CheckAgainstDouble("InstanceNorm", dtype, {x, Typed(channels, rng), Typed(channels, rng)}, [](Node&) {});
    CheckAgainstDouble("LRN", dtype, {x}, [](Node& node) {
      node.attrs().Set("depth_radius", int64_t{1});
      node.attrs().Set("alpha", 1e-1f);
      node.attrs().Set("beta", 0.75f);
    });
  }
}

TEST_CASE("Resize, Einsum and MatrixDeterminant in the added dtypes agree with float64", "[device][dtype][misc]") {
  std::mt19937 rng(109);
  for (const std::string mode : {"nearest", "linear", "cubic"}) {
    for (DataType dtype : {DataType::kBFloat16, DataType::kInt16, DataType::kUInt16}) {
      INFO(mode);
      const bool integral = IsIntegral(dtype);
      // Integer interpolations round to nearest: compare only modes whose float64 result rounds the same way.
      if (integral && mode != "nearest") continue;
      CheckAgainstDouble("Resize", dtype,
                         {Typed(Shape{1, 1, 3, 4}, rng, 0, 8, integral), Fixed(DataType::kFloat, Shape{0}, {}),
                          Fixed(DataType::kFloat, Shape{4}, {1, 1, 1.5, 2})},
                         [&](Node& node) { node.attrs().Set("mode", mode); });
    }
  }
  for (DataType dtype : kHalfTypes) {
    CheckAgainstDouble("Einsum", dtype, {Typed(Shape{2, 3}, rng), Typed(Shape{3, 4}, rng)},
                       [](Node& node) { node.attrs().Set("equation", std::string("ij,jk->ik")); });
    CheckAgainstDouble("MatrixDeterminant", dtype, {Typed(Shape{2, 3, 3}, rng, -2, 2)}, [](Node&) {});
  }
  CheckAgainstDouble("Einsum", DataType::kInt8,
                     {Typed(Shape{2, 3}, rng, -3, 3, true), Typed(Shape{3}, rng, -3, 3, true)},
                     [](Node& node) { node.attrs().Set("equation", std::string("ij,j->i")); });
}

TEST_CASE("CommonRNN, CommonGRU and CommonLSTM in float16 and bfloat16 agree with float64", "[device][dtype][rnn]") {
  std::mt19937 rng(110);
  const int64_t seq = 3, batch = 2, input = 3, hidden = 4, directions = 2;
  for (const auto& [op, gates] : std::vector<std::pair<std::string, int64_t>>{
           {"CommonRNN", 1}, {"CommonGRU", 3}, {"CommonLSTM", 4}}) {
    const bool lstm = gates == 4;
    for (DataType dtype : kHalfTypes) {
      std::vector<Operand> operands = {
          Typed(Shape{seq, batch, input}, rng, -1, 1), Typed(Shape{directions, gates * hidden, input}, rng, -1, 1),
          Typed(Shape{directions, gates * hidden, hidden}, rng, -1, 1),
          Typed(Shape{directions, 2 * gates * hidden}, rng, -1, 1), Fixed(DataType::kInt32, Shape{batch}, {3, 2}),
          Typed(Shape{directions, batch, hidden}, rng, -1, 1)};
      if (lstm) {
        operands.push_back(Typed(Shape{directions, batch, hidden}, rng, -1, 1));
        operands.push_back(Typed(Shape{directions, 3 * hidden}, rng, -1, 1));
      }
      CheckAgainstDouble(op, dtype, operands,
                         [&](Node& node) {
                           node.attrs().Set("hidden_size", hidden);
                           node.attrs().Set("direction", std::string("bidirectional"));
                         },
                         lstm ? 3 : 2);
    }
  }
}

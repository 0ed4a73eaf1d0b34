// Tile, Expand, PadV3, DepthToSpace, SpaceToDepth, Tril/Triu, Fill, Range,
// OneHot, EyeLike, Size against naive float64 references.
#include <catch2/catch.hpp>

#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

Tensor Int64s(const std::vector<int64_t>& values, bool scalar = false) {
  return Tensor::FromVector(DataType::kInt64, scalar ? Shape{} : Shape{static_cast<int64_t>(values.size())}, values);
}

// A node whose input 0 is a graph input shaped like x and whose other inputs
// are the given constants (nullptr-free).
Node* NodeWithConstants(Graph& g, const std::string& op, const Tensor& x, const std::vector<Tensor>& constants) {
  std::vector<Value*> inputs = {g.AddInput("x", x.dtype(), x.shape())};
  for (size_t i = 0; i < constants.size(); ++i) inputs.push_back(g.AddConstant("c" + std::to_string(i), constants[i]));
  return g.AddNode(op, "node", inputs);
}

// Every element of `out` shape read from x at the index `source` computes (or NaN = padding value).
template <typename Source>
std::vector<double> Reference(const Tensor& x, const Shape& out, Source source) {
  const std::vector<double> values = ToDoubles(x);
  std::vector<double> expected;
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const int64_t at = source(Unravel(i, out.dims()));
    expected.push_back(at < 0 ? 0.0 : values[at]);
  }
  return expected;
}

}  // namespace

TEST_CASE("Tile and Expand repeat x by the modulo rule", "[device][tile]") {
  std::mt19937 rng(7);
  for (DataType dtype : {DataType::kFloat, DataType::kInt8, DataType::kInt64}) {
    const Tensor x = RandomTensor(dtype, Shape{2, 1, 3}, rng, -50, 50);
    {
      Graph g;
      Node* tile = NodeWithConstants(g, "Tile", x, {Int64s({2, 3, 2})});
      const Shape out{4, 3, 6};
      SetOutput(tile, 0, dtype, out);
      CheckClose(RunCpuKernel(*tile, {x})[0],
                 Reference(x, out, [](auto i) { return Ravel({i[0] % 2, 0, i[2] % 3}, {2, 1, 3}); }), 0, 0);
    }
    {
      Graph g;
      Node* expand = NodeWithConstants(g, "Expand", x, {Int64s({2, 2, 4, 3})});
      const Shape out{2, 2, 4, 3};
      SetOutput(expand, 0, dtype, out);
      CheckClose(RunCpuKernel(*expand, {x})[0],
                 Reference(x, out, [](auto i) { return Ravel({i[1], 0, i[3]}, {2, 1, 3}); }), 0, 0);
    }
  }
}

TEST_CASE("PadV3 pads and crops in constant, reflect and edge modes", "[device][pad]") {
  std::mt19937 rng(8);
  const Tensor x = RandomTensor(DataType::kFloat, Shape{3, 4}, rng);
  // ONNX order [b0, b1, e0, e1]: pad dim 0 by (2, 1), crop dim 1 by (1 in front), pad 3 at its end.
  const std::vector<int64_t> pads = {2, -1, 1, 3};
  const Shape out{6, 6};
  for (const std::string mode : {"constant", "reflect", "edge"}) {
    Graph g;
    Node* pad = NodeWithConstants(g, "PadV3", x, {Int64s(pads), Tensor::FromVector(DataType::kFloat, Shape{},
                                                                                    std::vector<float>{0.0f})});
    pad->attrs().Set("mode", mode);
    pad->attrs().Set("paddings_contiguous", false);
    SetOutput(pad, 0, DataType::kFloat, out);
    auto source = [&](int64_t o, int64_t begin, int64_t dim) -> int64_t {
      int64_t i = o - begin;
      if (i >= 0 && i < dim) return i;
      if (mode == "constant") return -1;
      if (mode == "edge") return i < 0 ? 0 : dim - 1;
      while (i < 0 || i >= dim) i = i < 0 ? -i : 2 * (dim - 1) - i;
      return i;
    };
    INFO(mode);
    CheckClose(RunCpuKernel(*pad, {x})[0], Reference(x, out, [&](auto i) {
                 const int64_t r = source(i[0], 2, 3), c = source(i[1], -1, 4);
                 return r < 0 || c < 0 ? -1 : r * 4 + c;
               }),
               0, 0);
  }
}

TEST_CASE("DepthToSpace (DCR, CRD) and SpaceToDepth invert each other", "[device][space_depth]") {
  std::mt19937 rng(9);
  const int64_t b = 2;
  const Tensor x = RandomTensor(DataType::kInt32, Shape{2, 8, 3, 2}, rng, -100, 100);
  const Shape out{2, 2, 6, 4};
  for (const std::string mode : {"DCR", "CRD"}) {
    Graph g;
    Node* d2s = g.AddNode("DepthToSpace", "d2s", {g.AddInput("x", DataType::kInt32, x.shape())});
    d2s->attrs().Set("block_size", b);
    d2s->attrs().Set("mode", mode);
    d2s->attrs().Set("data_format", std::string("NCHW"));
    SetOutput(d2s, 0, DataType::kInt32, out);
    const Tensor y = RunCpuKernel(*d2s, {x})[0];
    INFO(mode);
    CheckClose(y, Reference(x, out, [&](auto i) {
                 const int64_t bh = i[2] % b, bw = i[3] % b;
                 const int64_t c = mode == "DCR" ? (bh * b + bw) * 2 + i[1] : i[1] * b * b + bh * b + bw;
                 return Ravel({i[0], c, i[2] / b, i[3] / b}, x.shape().dims());
               }),
               0, 0);
    if (mode == "DCR") {
      Node* s2d = g.AddNode("SpaceToDepth", "s2d", {g.AddInput("y", DataType::kInt32, out)});
      s2d->attrs().Set("block_size", b);
      s2d->attrs().Set("data_format", std::string("NCHW"));
      SetOutput(s2d, 0, DataType::kInt32, x.shape());
      CheckClose(RunCpuKernel(*s2d, {y})[0], ToDoubles(x), 0, 0);
    }
  }
}

TEST_CASE("Tril and Triu keep one triangle of the last two dims", "[device][trilu]") {
  std::mt19937 rng(10);
  const Tensor x = RandomTensor(DataType::kInt64, Shape{2, 3, 5}, rng, 1, 100);
  for (const char* op : {"Tril", "Triu"}) {
    for (int64_t k : {-1, 0, 2}) {
      Graph g;
      Node* node = g.AddNode(op, "t", {g.AddInput("x", DataType::kInt64, x.shape())});
      node->attrs().Set("diagonal", k);
      SetOutput(node, 0, DataType::kInt64, x.shape());
      const bool upper = std::string(op) == "Triu";
      INFO(op << " k " << k);
      CheckClose(RunCpuKernel(*node, {x})[0], Reference(x, x.shape(), [&](auto i) -> int64_t {
                   const bool keep = upper ? i[2] - i[1] >= k : i[2] - i[1] <= k;
                   return keep ? Ravel(i, x.shape().dims()) : -1;
                 }),
                 0, 0);
    }
  }
}

TEST_CASE("Fill, Range, EyeLike and Size generate their outputs", "[device][generator]") {
  Graph g;
  Node* fill = g.AddNode("Fill", "fill",
                         {g.AddInput("dims", DataType::kInt64, Shape{2}), g.AddInput("v", DataType::kInt8, Shape{})});
  SetOutput(fill, 0, DataType::kInt8, Shape{2, 3});
  CheckClose(RunCpuKernel(*fill, {Int64s({2, 3}), Tensor::FromVector(DataType::kInt8, Shape{}, std::vector<int8_t>{-7})})[0],
             std::vector<double>(6, -7.0), 0, 0);

  Node* range = g.AddNode("Range", "range",
                          {g.AddInput("s", DataType::kFloat, Shape{}), g.AddInput("l", DataType::kFloat, Shape{}),
                           g.AddInput("d", DataType::kFloat, Shape{})});
  SetOutput(range, 0, DataType::kFloat, Shape{4});
  auto scalar = [](float v) { return Tensor::FromVector(DataType::kFloat, Shape{}, std::vector<float>{v}); };
  CheckClose(RunCpuKernel(*range, {scalar(1.0f), scalar(-1.0f), scalar(-0.5f)})[0], {1.0, 0.5, 0.0, -0.5});

  Node* eye = g.AddNode("EyeLike", "eye", {g.AddInput("e", DataType::kFloat, Shape{3, 4})});
  eye->attrs().Set("dtype", static_cast<int64_t>(DataType::kInt32));
  eye->attrs().Set("k", int64_t{1});
  SetOutput(eye, 0, DataType::kInt32, Shape{3, 4});
  CheckClose(RunCpuKernel(*eye, {Tensor(DataType::kFloat, Shape{3, 4})})[0],
             {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 0, 0);

  Node* size = g.AddNode("Size", "size", {g.AddInput("z", DataType::kFloat, Shape{3, 4})});
  size->attrs().Set("dtype", static_cast<int64_t>(DataType::kInt64));
  SetOutput(size, 0, DataType::kInt64, Shape{});
  CheckClose(RunCpuKernel(*size, {Tensor(DataType::kFloat, Shape{3, 4})})[0], {12}, 0, 0);
}

TEST_CASE("OneHot puts on_value at the index along axis, negatives from depth", "[device][onehot]") {
  const Tensor indices = Tensor::FromVector(DataType::kFloat, Shape{2, 2}, std::vector<float>{0, -1, 2.7f, 5});
  for (int64_t axis : {0, 1, -1}) {
    Graph g;
    Node* node = g.AddNode("OneHot", "oh",
                           {g.AddInput("i", DataType::kFloat, Shape{2, 2}), g.AddConstant("d", Int64s({3}, true)),
                            g.AddInput("on", DataType::kInt64, Shape{}), g.AddInput("off", DataType::kInt64, Shape{})});
    node->attrs().Set("axis", axis);
    const int64_t a = axis < 0 ? 2 : axis;
    std::vector<int64_t> dims = {2, 2};
    dims.insert(dims.begin() + a, 3);
    SetOutput(node, 0, DataType::kInt64, Shape(dims));
    std::vector<double> expected;
    const std::vector<double> idx = {0, 2, 2, -1};  // truncated, wrapped; 5 is out of range
    for (int64_t i = 0; i < 12; ++i) {
      auto pos = Unravel(i, dims);
      const int64_t depth_pos = pos[a];
      pos.erase(pos.begin() + a);
      expected.push_back(idx[pos[0] * 2 + pos[1]] == static_cast<double>(depth_pos) ? 5 : -2);
    }
    INFO("axis " << axis);
    CheckClose(RunCpuKernel(*node, {indices, Tensor(), Int64s({5}, true), Int64s({-2}, true)})[0], expected, 0, 0);
  }
}

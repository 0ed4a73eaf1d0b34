// Conv2DBackpropInput (a convolution's gradient with respect to its input,
// TensorFlow's transposed convolution) imported from a GraphDef against
// float64 loops of its definition: every out_backprop cell spreads
// x * filter over the window the forward convolution read it from, with the
// forward convolution's SAME or VALID padding.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ge/compiled_model.h"
#include "ge/tf_importer.h"
#include "test_support.h"
#include "tf_graph_writer.h"

using namespace ge;
using namespace ge::test::tf_writer;

TEST_CASE("Conv2DBackpropInput matches its definition in float64", "[tf][conv_transpose]") {
  const bool same = GENERATE(true, false);
  INFO((same ? "SAME" : "VALID"));
  // out_backprop [1, 5, 4, 3] to [1, H, W, 2], stride 2, a 3x3 filter.
  constexpr int64_t kOh = 5, kOw = 4, kCx = 3, kCy = 2, kK = 3, kStride = 2;
  const int64_t h = same ? 10 : 11, w = same ? 8 : 9;
  const int64_t pad_top = same ? std::max<int64_t>((kOh - 1) * kStride + kK - h, 0) / 2 : 0;
  const int64_t pad_left = same ? std::max<int64_t>((kOw - 1) * kStride + kK - w, 0) / 2 : 0;
  const std::vector<float> filter = test::RandomVector(kK * kK * kCy * kCx, 5);  // [kh, kw, Cy, Cx]
  const std::vector<float> x = test::RandomVector(kOh * kOw * kCx, 6);

  tf::GraphDef g;
  Placeholder(g, "x", {1, kOh, kOw, kCx});
  Const(g, "sizes", IntTensor({4}, {1, static_cast<int32_t>(h), static_cast<int32_t>(w), kCy}));
  Const(g, "filter", FloatTensor({kK, kK, kCy, kCx}, filter));
  tf::NodeDef& node = Add(g, "y", "Conv2DBackpropInput", {"sizes", "filter", "x"});
  Ints(node, "strides", {1, kStride, kStride, 1});
  (*node.mutable_attr())["padding"].set_s(same ? "SAME" : "VALID");
  const std::filesystem::path path = test::TempDir("tf_backprop_input") / "model.pb";
  std::ofstream(path, std::ios::binary) << g.SerializeAsString();
  const auto model = CompiledModel::Compile(ImportTensorFlowFile(path.string()));
  const Tensor out = model->Run({Tensor::FromVector(DataType::kFloat, Shape({1, kOh, kOw, kCx}), x)}).at(0);
  REQUIRE(out.shape() == Shape({1, h, w, kCy}));

  std::vector<double> expected(static_cast<size_t>(h * w * kCy), 0.0);
  for (int64_t oy = 0; oy < kOh; ++oy)
    for (int64_t ox = 0; ox < kOw; ++ox)
      for (int64_t cx = 0; cx < kCx; ++cx)
        for (int64_t ky = 0; ky < kK; ++ky)
          for (int64_t kx = 0; kx < kK; ++kx) {
            const int64_t yy = oy * kStride + ky - pad_top, xx = ox * kStride + kx - pad_left;
            if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
            for (int64_t cy = 0; cy < kCy; ++cy) {
              expected[static_cast<size_t>((yy * w + xx) * kCy + cy)] +=
                  double(x[(oy * kOw + ox) * kCx + cx]) * filter[((ky * kK + kx) * kCy + cy) * kCx + cx];
            }
          }
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    CHECK(out.data_as<float>()[i] == Approx(expected[i]).margin(1e-5));
  }
}

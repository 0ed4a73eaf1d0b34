// Conv3D imported from a GraphDef (NDHWC, SAME and VALID, strided, one case
// dilated in depth) against float64 loops of its definition.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ge/compiled_model.h"
#include "ge/tf_importer.h"
#include "test_support.h"
#include "tf_graph_writer.h"

using namespace ge;
using namespace ge::test::tf_writer;

TEST_CASE("Conv3D matches its definition in float64", "[tf][conv3d]") {
  const bool same = GENERATE(true, false);
  const int64_t dilation_d = GENERATE(1, 2);
  INFO((same ? "SAME" : "VALID") << " dilation_d " << dilation_d);
  constexpr int64_t kD = 5, kH = 6, kW = 7, kCin = 2, kCout = 3, kKd = 2, kKh = 3, kKw = 3;
  const std::vector<int64_t> stride = {1, 2, 2};  // depth, height, width
  const std::vector<int64_t> dilation = {dilation_d, 1, 1};
  const std::vector<int64_t> in = {kD, kH, kW}, kernel = {kKd, kKh, kKw};
  std::vector<int64_t> out(3), before(3);
  for (size_t a = 0; a < 3; ++a) {
    const int64_t span = (kernel[a] - 1) * dilation[a] + 1;
    out[a] = same ? (in[a] + stride[a] - 1) / stride[a] : (in[a] - span) / stride[a] + 1;
    before[a] = same ? std::max<int64_t>((out[a] - 1) * stride[a] + span - in[a], 0) / 2 : 0;
  }
  const std::vector<float> filter = test::RandomVector(kKd * kKh * kKw * kCin * kCout, 8);  // [kd, kh, kw, Cin, Cout]
  const std::vector<float> x = test::RandomVector(kD * kH * kW * kCin, 9);

  tf::GraphDef g;
  Placeholder(g, "x", {1, kD, kH, kW, kCin});
  Const(g, "filter", FloatTensor({kKd, kKh, kKw, kCin, kCout}, filter));
  tf::NodeDef& node = Add(g, "y", "Conv3D", {"x", "filter"});
  Ints(node, "strides", {1, stride[0], stride[1], stride[2], 1});
  Ints(node, "dilations", {1, dilation[0], dilation[1], dilation[2], 1});
  (*node.mutable_attr())["padding"].set_s(same ? "SAME" : "VALID");
  const std::filesystem::path path = test::TempDir("tf_conv3d") / "model.pb";
  std::ofstream(path, std::ios::binary) << g.SerializeAsString();
  const auto model = CompiledModel::Compile(ImportTensorFlowFile(path.string()));
  const Tensor y = model->Run({Tensor::FromVector(DataType::kFloat, Shape({1, kD, kH, kW, kCin}), x)}).at(0);
  REQUIRE(y.shape() == Shape({1, out[0], out[1], out[2], kCout}));

  for (int64_t od = 0; od < out[0]; ++od)
    for (int64_t oh = 0; oh < out[1]; ++oh)
      for (int64_t ow = 0; ow < out[2]; ++ow)
        for (int64_t co = 0; co < kCout; ++co) {
          double sum = 0;
          for (int64_t kd = 0; kd < kKd; ++kd)
            for (int64_t kh = 0; kh < kKh; ++kh)
              for (int64_t kw = 0; kw < kKw; ++kw) {
                const int64_t d = od * stride[0] + kd * dilation[0] - before[0];
                const int64_t h = oh * stride[1] + kh - before[1], w = ow * stride[2] + kw - before[2];
                if (d < 0 || d >= kD || h < 0 || h >= kH || w < 0 || w >= kW) continue;
                for (int64_t ci = 0; ci < kCin; ++ci) {
                  sum += double(x[((d * kH + h) * kW + w) * kCin + ci]) *
                         filter[(((kd * kKh + kh) * kKw + kw) * kCin + ci) * kCout + co];
                }
              }
          const int64_t index = ((od * out[1] + oh) * out[2] + ow) * kCout + co;
          INFO("output " << index);
          CHECK(y.data_as<float>()[index] == Approx(sum).margin(1e-5));
        }
}

// The Caffe import on nets written here with the project's own writer (the
// NetParameter schema: a .prototxt for the net, a .caffemodel for the
// weights), against float64 loops that follow Caffe's conventions: pooling
// rounds its output up, BatchNorm divides its statistics by the stored
// moving-average factor, InnerProduct flattens from its axis, Eltwise SUM
// takes coefficients, a ReLU written in place rebinds its blob. And the
// errors for what it cannot read.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <google/protobuf/text_format.h>

#include "ge/caffe_importer.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "graph/caffe/proto/caffe_net.pb.h"
#include "caffe_net_writer.h"
#include "test_support.h"

using namespace ge;
using ge::test::TempDir;
using namespace ge::test::caffe_writer;
namespace fs = std::filesystem;

namespace {

std::vector<float> Run(const std::pair<std::string, std::string>& files, const Shape& shape, const std::vector<float>& x,
                       Shape* out_shape = nullptr) {
  const auto model = CompiledModel::Compile(ImportCaffeFiles(files.first, files.second));
  Tensor input(DataType::kFloat, shape);
  std::copy(x.begin(), x.end(), static_cast<float*>(input.data()));
  const Tensor out = model->Run({input}).at(0);
  if (out_shape != nullptr) *out_shape = out.shape();
  const auto* data = static_cast<const float*>(out.data());
  return std::vector<float>(data, data + out.shape().NumElements());
}

}  // namespace

TEST_CASE("a Caffe net (Convolution, BatchNorm, Scale, in-place ReLU, Pooling, grouped 1x1, Eltwise, InnerProduct, "
          "Softmax) matches float64 loops", "[caffe]") {
  constexpr int64_t kN = 2, kC = 3, kH = 7, kF = 4, kClasses = 5;
  caffe::NetParameter net;
  net.set_name("small");
  AddInput(net, {kN, kC, kH, kH});
  const std::vector<float> w1 = test::RandomVector(kF * kC * 9, 1), b1 = test::RandomVector(kF, 2);
  caffe::LayerParameter& conv1 = Layer(net, "conv1", "Convolution", {"data"}, "conv1");
  conv1.mutable_convolution_param()->set_num_output(kF);
  conv1.mutable_convolution_param()->add_kernel_size(3);
  conv1.mutable_convolution_param()->add_pad(1);
  conv1.mutable_convolution_param()->add_stride(2);
  SetBlob(conv1, {kF, kC, 3, 3}, w1);
  SetBlob(conv1, {kF}, b1);
  // BatchNorm's blobs as Caffe stores them: sums scaled by the factor 0.5.
  std::vector<float> mean = test::RandomVector(kF, 3), variance = test::RandomVector(kF, 4);
  for (float& v : variance) v = std::abs(v) + 0.1f;
  caffe::LayerParameter& bn = Layer(net, "bn1", "BatchNorm", {"conv1"}, "conv1");
  std::vector<float> stored_mean = mean, stored_var = variance;
  for (float& v : stored_mean) v *= 0.5f;
  for (float& v : stored_var) v *= 0.5f;
  SetBlob(bn, {kF}, stored_mean);
  SetBlob(bn, {kF}, stored_var);
  SetBlob(bn, {1}, {0.5f});
  const std::vector<float> gamma = test::RandomVector(kF, 5), beta = test::RandomVector(kF, 6);
  caffe::LayerParameter& scale = Layer(net, "scale1", "Scale", {"conv1"}, "conv1");
  scale.mutable_scale_param()->set_bias_term(true);
  SetBlob(scale, {kF}, gamma);
  SetBlob(scale, {kF}, beta);
  Layer(net, "relu1", "ReLU", {"conv1"}, "conv1");  // in place
  caffe::LayerParameter& pool = Layer(net, "pool1", "Pooling", {"conv1"}, "pool1");
  pool.mutable_pooling_param()->set_kernel_size(3);
  pool.mutable_pooling_param()->set_stride(2);  // 4x4 -> 2x2 rounded up (1x1 rounded down)
  const std::vector<float> w2 = test::RandomVector(kF * (kF / 2), 7), b2 = test::RandomVector(kF, 8);
  caffe::LayerParameter& conv2 = Layer(net, "conv2", "Convolution", {"pool1"}, "conv2");
  conv2.mutable_convolution_param()->set_num_output(kF);
  conv2.mutable_convolution_param()->add_kernel_size(1);
  conv2.mutable_convolution_param()->set_group(2);
  SetBlob(conv2, {kF, kF / 2, 1, 1}, w2);
  SetBlob(conv2, {kF}, b2);
  caffe::LayerParameter& sum = Layer(net, "sum", "Eltwise", {"pool1", "conv2"}, "sum");
  sum.mutable_eltwise_param()->add_coeff(1.0f);
  sum.mutable_eltwise_param()->add_coeff(-0.5f);
  const std::vector<float> w3 = test::RandomVector(kClasses * kF * 4, 9), b3 = test::RandomVector(kClasses, 10);
  caffe::LayerParameter& ip = Layer(net, "ip1", "InnerProduct", {"sum"}, "ip1");
  ip.mutable_inner_product_param()->set_num_output(kClasses);
  SetBlob(ip, {kClasses, kF * 4}, w3);
  SetBlob(ip, {kClasses}, b3);
  Layer(net, "prob", "Softmax", {"ip1"}, "prob");
  caffe::LayerParameter& loss = Layer(net, "loss", "SoftmaxWithLoss", {"ip1"}, "loss");  // training only
  loss.add_include()->set_phase(caffe::TRAIN);

  const std::vector<float> x = test::RandomVector(kN * kC * kH * kH, 11);
  Shape shape;
  const std::vector<float> got = Run(Save(net, "small"), Shape({kN, kC, kH, kH}), x, &shape);
  REQUIRE(shape == Shape({kN, kClasses}));

  for (int64_t n = 0; n < kN; ++n) {
    // conv1 (3x3, pad 1, stride 2: 7 -> 4), BatchNorm, Scale, ReLU.
    double a[kF][4][4];
    for (int64_t f = 0; f < kF; ++f)
      for (int64_t y = 0; y < 4; ++y)
        for (int64_t xx = 0; xx < 4; ++xx) {
          double s = b1[f];
          for (int64_t c = 0; c < kC; ++c)
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = y * 2 + ky - 1, ix = xx * 2 + kx - 1;
                if (iy >= 0 && iy < kH && ix >= 0 && ix < kH) {
                  s += double(x[((n * kC + c) * kH + iy) * kH + ix]) * w1[((f * kC + c) * 3 + ky) * 3 + kx];
                }
              }
          s = (s - mean[f]) / std::sqrt(double(variance[f]) + 1e-5) * gamma[f] + beta[f];
          a[f][y][xx] = std::max(s, 0.0);
        }
    // Max pool 3x3 stride 2 over 4x4, rounded up: windows at 0 and 2, the second clipped to rows 2..3.
    double p[kF][2][2];
    for (int64_t f = 0; f < kF; ++f)
      for (int64_t y = 0; y < 2; ++y)
        for (int64_t xx = 0; xx < 2; ++xx) {
          double best = -INFINITY;
          for (int64_t iy = y * 2; iy < std::min<int64_t>(y * 2 + 3, 4); ++iy)
            for (int64_t ix = xx * 2; ix < std::min<int64_t>(xx * 2 + 3, 4); ++ix) best = std::max(best, a[f][iy][ix]);
          p[f][y][xx] = best;
        }
    // conv2 (1x1, 2 groups of 2 channels), then pool1 - 0.5 * conv2, flattened, InnerProduct, Softmax.
    double flat[kF * 4];
    for (int64_t f = 0; f < kF; ++f)
      for (int64_t y = 0; y < 2; ++y)
        for (int64_t xx = 0; xx < 2; ++xx) {
          const int64_t group = f / 2;
          double s = b2[f];
          for (int64_t c = 0; c < 2; ++c) s += p[group * 2 + c][y][xx] * w2[f * 2 + c];
          flat[(f * 2 + y) * 2 + xx] = p[f][y][xx] - 0.5 * s;
        }
    double logits[kClasses], total = 0;
    for (int64_t j = 0; j < kClasses; ++j) {
      logits[j] = b3[j];
      for (int64_t k = 0; k < kF * 4; ++k) logits[j] += flat[k] * w3[j * kF * 4 + k];
    }
    const double top = *std::max_element(logits, logits + kClasses);
    for (double& l : logits) total += (l = std::exp(l - top));
    for (int64_t j = 0; j < kClasses; ++j) CHECK(got[n * kClasses + j] == Approx(logits[j] / total).margin(1e-5));
  }
}

TEST_CASE("Caffe pooling rounds its output length up and keeps the last window inside the padding", "[caffe]") {
  // 5x5, kernel 2, stride 2: Caffe 3x3 (ONNX and TensorFlow's floor: 2x2); AVE divides by the clipped window.
  const bool average = GENERATE(false, true);
  caffe::NetParameter net;
  AddInput(net, {1, 1, 5, 5});
  caffe::LayerParameter& pool = Layer(net, "pool", "Pooling", {"data"}, "pool");
  pool.mutable_pooling_param()->set_kernel_size(2);
  pool.mutable_pooling_param()->set_stride(2);
  if (average) pool.mutable_pooling_param()->set_pool(caffe::PoolingParameter::AVE);
  std::vector<float> x(25);
  for (int i = 0; i < 25; ++i) x[i] = float(i);
  Shape shape;
  const std::vector<float> got = Run(Save(net, "pool"), Shape({1, 1, 5, 5}), x, &shape);
  REQUIRE(shape == Shape({1, 1, 3, 3}));
  for (int64_t y = 0; y < 3; ++y)
    for (int64_t xx = 0; xx < 3; ++xx) {
      double best = -INFINITY, sum = 0;
      int count = 0;
      for (int64_t iy = y * 2; iy < std::min<int64_t>(y * 2 + 2, 5); ++iy)
        for (int64_t ix = xx * 2; ix < std::min<int64_t>(xx * 2 + 2, 5); ++ix) {
          best = std::max(best, double(x[iy * 5 + ix]));
          sum += x[iy * 5 + ix];
          ++count;
        }
      CHECK(got[y * 3 + xx] == Approx(average ? sum / count : best));
    }
  // With padding 1, kernel 2, stride 2 over 6: rounded up, ceil((6 + 2 - 2) / 2) + 1 = 4 windows; the last
  // starts at 3 * 2 = 6, inside the padded input (6 < 6 + 1), so Caffe keeps it.
  caffe::NetParameter padded;
  AddInput(padded, {1, 1, 6, 6});
  caffe::LayerParameter& p2 = Layer(padded, "pool", "Pooling", {"data"}, "pool");
  p2.mutable_pooling_param()->set_kernel_size(2);
  p2.mutable_pooling_param()->set_stride(2);
  p2.mutable_pooling_param()->set_pad(1);
  Run(Save(padded, "pool_padded"), Shape({1, 1, 6, 6}), std::vector<float>(36, 1.0f), &shape);
  CHECK(shape == Shape({1, 1, 4, 4}));
}

TEST_CASE("Caffe InnerProduct flattens from its axis", "[caffe]") {
  caffe::NetParameter net;
  AddInput(net, {2, 3, 4});
  caffe::LayerParameter& ip = Layer(net, "ip", "InnerProduct", {"data"}, "ip");
  ip.mutable_inner_product_param()->set_num_output(5);
  ip.mutable_inner_product_param()->set_axis(2);
  const std::vector<float> w = test::RandomVector(5 * 4, 1), b = test::RandomVector(5, 2);
  SetBlob(ip, {5, 4}, w);
  SetBlob(ip, {5}, b);
  const std::vector<float> x = test::RandomVector(24, 3);
  Shape shape;
  const std::vector<float> got = Run(Save(net, "ip_axis"), Shape({2, 3, 4}), x, &shape);
  REQUIRE(shape == Shape({2, 3, 5}));
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t j = 0; j < 5; ++j) {
      double s = b[j];
      for (int64_t k = 0; k < 4; ++k) s += double(x[r * 4 + k]) * w[j * 4 + k];
      CHECK(got[r * 5 + j] == Approx(s).margin(1e-5));
    }
}

TEST_CASE("Caffe LRN across channels and a zero BatchNorm factor", "[caffe]") {
  caffe::NetParameter net;
  AddInput(net, {1, 5, 2, 2});
  caffe::LayerParameter& lrn = Layer(net, "lrn", "LRN", {"data"}, "lrn");
  lrn.mutable_lrn_param()->set_local_size(3);
  lrn.mutable_lrn_param()->set_alpha(0.3f);
  lrn.mutable_lrn_param()->set_beta(0.75f);
  lrn.mutable_lrn_param()->set_k(2.0f);
  // A factor of 0 (an untrained net): Caffe then uses zero statistics.
  caffe::LayerParameter& bn = Layer(net, "bn", "BatchNorm", {"lrn"}, "bn");
  SetBlob(bn, {5}, test::RandomVector(5, 1));
  SetBlob(bn, {5}, test::RandomVector(5, 2));
  SetBlob(bn, {1}, {0.0f});
  const std::vector<float> x = test::RandomVector(20, 3);
  const std::vector<float> got = Run(Save(net, "lrn"), Shape({1, 5, 2, 2}), x);
  for (int64_t c = 0; c < 5; ++c)
    for (int64_t i = 0; i < 4; ++i) {
      double squares = 0;
      for (int64_t k = std::max<int64_t>(c - 1, 0); k <= std::min<int64_t>(c + 1, 4); ++k) squares += double(x[k * 4 + i]) * x[k * 4 + i];
      const double expected = x[c * 4 + i] / std::pow(2.0 + 0.3 / 3 * squares, 0.75) / std::sqrt(1e-5);
      CHECK(got[c * 4 + i] == Approx(expected).epsilon(1e-4));
    }
}

TEST_CASE("the Caffe import refuses what it cannot read with one clear error", "[caffe]") {
  const fs::path dir = TempDir("errors");
  SECTION("unsupported layer types are listed with their counts") {
    caffe::NetParameter net;
    AddInput(net, {1, 1, 4, 4});
    Layer(net, "a", "Crop", {"data"}, "a");
    Layer(net, "b", "Crop", {"a"}, "b");
    Layer(net, "c", "ROIPooling", {"b"}, "c");
    const auto files = Save(net, "unsupported");
    CHECK_THROWS_WITH(ImportCaffeFiles(files.first, files.second),
                      Catch::Contains("2 layer types are not supported") && Catch::Contains("Crop (2), ROIPooling (1)"));
  }
  SECTION("a prototxt syntax error names the line") {
    std::ofstream(dir / "bad.prototxt") << "name: \"x\"\nlayer {\n  name: \"c\"\n  type: Convolution\n}\n";
    CHECK_THROWS_WITH(ImportCaffeFiles((dir / "bad.prototxt").string()), Catch::Contains("bad.prototxt:4:"));
  }
  SECTION("a truncated .caffemodel, missing weights, an unknown bottom") {
    caffe::NetParameter net;
    AddInput(net, {1, 1, 4, 4});
    caffe::LayerParameter& ip = Layer(net, "ip", "InnerProduct", {"data"}, "ip");
    ip.mutable_inner_product_param()->set_num_output(2);
    SetBlob(ip, {2, 16}, test::RandomVector(32, 1));
    SetBlob(ip, {2}, test::RandomVector(2, 2));
    const auto files = Save(net, "weights");
    const std::string bytes = [&] {
      std::ifstream in(files.second, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    std::ofstream(files.second, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
    CHECK_THROWS_WITH(ImportCaffeFiles(files.first, files.second), Catch::Contains("not a valid .caffemodel"));
    CHECK_THROWS_WITH(ImportCaffeFiles(files.first), Catch::Contains("no weights for it"));
    caffe::NetParameter dangling;
    AddInput(dangling, {1, 1, 4, 4});
    Layer(dangling, "relu", "ReLU", {"nowhere"}, "relu");
    const auto more = Save(dangling, "dangling");
    CHECK_THROWS_WITH(ImportCaffeFiles(more.first, more.second), Catch::Contains("reads blob 'nowhere'"));
  }
}

TEST_CASE("Caffe Deconvolution, PReLU, Concat, Eltwise PROD and MAX, Split, Dropout, Flatten, Reshape, Sigmoid",
          "[caffe]") {
  constexpr int64_t kC = 2, kH = 3, kF = 3;
  caffe::NetParameter net;
  AddInput(net, {1, kC, kH, kH});
  // Deconvolution 2x2 stride 2: [1, 2, 3, 3] -> [1, 3, 6, 6]; Caffe's filter [Cin, Cout, kh, kw].
  const std::vector<float> w = test::RandomVector(kC * kF * 4, 1), b = test::RandomVector(kF, 2), slope = test::RandomVector(kF, 3);
  caffe::LayerParameter& deconv = Layer(net, "up", "Deconvolution", {"data"}, "up");
  deconv.mutable_convolution_param()->set_num_output(kF);
  deconv.mutable_convolution_param()->add_kernel_size(2);
  deconv.mutable_convolution_param()->add_stride(2);
  SetBlob(deconv, {kC, kF, 2, 2}, w);
  SetBlob(deconv, {kF}, b);
  caffe::LayerParameter& prelu = Layer(net, "prelu", "PReLU", {"up"}, "up");
  SetBlob(prelu, {kF}, slope);
  caffe::LayerParameter& split = Layer(net, "split", "Split", {"up"}, "a");
  split.add_top("b");
  Layer(net, "drop", "Dropout", {"b"}, "b");
  Layer(net, "sig", "Sigmoid", {"a"}, "s");
  caffe::LayerParameter& prod = Layer(net, "prod", "Eltwise", {"s", "b"}, "p");
  prod.mutable_eltwise_param()->set_operation(caffe::EltwiseParameter::PROD);
  caffe::LayerParameter& max = Layer(net, "max", "Eltwise", {"p", "a"}, "m");
  max.mutable_eltwise_param()->set_operation(caffe::EltwiseParameter::MAX);
  Layer(net, "cat", "Concat", {"m", "s"}, "cat");  // [1, 6, 6, 6]
  caffe::LayerParameter& flat = Layer(net, "flat", "Flatten", {"cat"}, "flat");
  flat.mutable_flatten_param()->set_axis(2);  // [1, 6, 36]
  caffe::LayerParameter& reshape = Layer(net, "reshape", "Reshape", {"flat"}, "out");
  for (int64_t d : {0, -1, 6}) reshape.mutable_reshape_param()->mutable_shape()->add_dim(d);  // [1, 36, 6]
  const std::vector<float> x = test::RandomVector(kC * kH * kH, 4);
  Shape shape;
  const std::vector<float> got = Run(Save(net, "more"), Shape({1, kC, kH, kH}), x, &shape);
  REQUIRE(shape == Shape({1, 36, 6}));
  // up[f][y][x]: each input pixel spreads a 2x2 block.
  double up[kF][6][6];
  for (int64_t f = 0; f < kF; ++f)
    for (int64_t y = 0; y < 6; ++y)
      for (int64_t xx = 0; xx < 6; ++xx) {
        double s = b[f];
        for (int64_t c = 0; c < kC; ++c) s += double(x[(c * kH + y / 2) * kH + xx / 2]) * w[((c * kF + f) * 2 + y % 2) * 2 + xx % 2];
        up[f][y][xx] = s > 0 ? s : s * slope[f];
      }
  std::vector<double> cat;  // channels 0..2: max(sigmoid(a) * a, a); 3..5: sigmoid(a)
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t f = 0; f < kF; ++f)
      for (int64_t y = 0; y < 6; ++y)
        for (int64_t xx = 0; xx < 6; ++xx) {
          const double a = up[f][y][xx], s = 1 / (1 + std::exp(-a));
          cat.push_back(pass == 0 ? std::max(s * a, a) : s);
        }
  REQUIRE(got.size() == cat.size());
  for (size_t i = 0; i < cat.size(); ++i) CHECK(got[i] == Approx(cat[i]).margin(1e-5));
}

// Caffe nets converted from PyTorch modules against PyTorch itself:
// scripts/make_caffe_fixtures.py writes each module as deploy.prototxt +
// trained.caffemodel with the project's own writer, with the input it fed and
// PyTorch's float64 output (tests/caffe/pytorch/<net>/). The nets cover every
// layer type the importer translates and Caffe's conventions: pooling rounded
// up, BatchNorm's moving-average factor, InnerProduct flattening from axis 1,
// Eltwise coefficients, layers written in place.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "ge/caffe_importer.h"
#include "ge/compiled_model.h"
#include "graph/npy.h"
#include "test_support.h"

using namespace ge;

TEST_CASE("Caffe nets written from PyTorch modules match PyTorch", "[caffe][pytorch]") {
  const std::string net = GENERATE(as<std::string>{}, "cnn", "branches");
  INFO(net);
  const auto folder = test::SourceDir() / "tests" / "caffe" / "pytorch" / net;
  const auto model = CompiledModel::Compile(
      ImportCaffeFiles((folder / "deploy.prototxt").string(), (folder / "trained.caffemodel").string()));
  const Tensor input = ReadNpy((folder / "input.npy").string());
  const Tensor expected = ReadNpy((folder / "expected.npy").string());
  REQUIRE(expected.dtype() == DataType::kDouble);
  const std::vector<Tensor> out = model->Run({input});
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].shape() == expected.shape());
  double largest = 0;
  for (int64_t i = 0; i < expected.shape().NumElements(); ++i) {
    largest = std::max(largest, std::abs(expected.data_as<double>()[i]));
  }
  const double tolerance = 1e-4 * std::max(1.0, largest);
  double worst = 0;
  for (int64_t i = 0; i < expected.shape().NumElements(); ++i) {
    worst = std::max(worst, std::abs(double(out[0].data_as<float>()[i]) - expected.data_as<double>()[i]));
  }
  CHECK(worst <= tolerance);
}

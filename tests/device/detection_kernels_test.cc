// NonMaxSuppressionV6, ROIAlign, GridSampler2D and the signal ops (windows,
// DFT) against values worked out by hand from the ONNX operator definitions
// or a std::complex float64 DFT
// (images that are linear in y and x make bilinear and bicubic samples exact),
// plus the schemas' inference: NonMaxSuppression's row count from constant
// inputs, and bad attributes that name the node and the valid values.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <random>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

// Fills the attribute defaults and runs the schema's inference, as compiling does.
void Infer(Node* node) {
  const OpSchema* schema = OpRegistry::Global().Find(node->op_type());
  REQUIRE(schema != nullptr);
  schema->NormalizeAttrs(*node);
  InferContext ctx(*node);
  schema->infer()(ctx);
}

Tensor Floats(Shape shape, const std::vector<float>& values) {
  return Tensor::FromVector(DataType::kFloat, std::move(shape), values);
}

Tensor Scalar(float v) { return Floats(Shape{}, {v}); }
Tensor Scalar64(int64_t v) { return Tensor::FromVector(DataType::kInt64, Shape{}, std::vector<int64_t>{v}); }

// The ONNX suppress_by_IOU boxes as [y1, x1, y2, x2]: three clusters around x = 0, 10 and 100.
const std::vector<float> kCornerBoxes = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                                         0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
// The same boxes as [x_center, y_center, width, height].
const std::vector<float> kCenterBoxes = {0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1, 0.4f, 0.5f, 1, 1,
                                         10.5f, 0.5f, 1, 1, 10.6f, 0.5f, 1, 1, 100.5f, 0.5f, 1, 1};
const std::vector<float> kScores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

// A NonMaxSuppressionV6 node on constant inputs (absent ones when the tensor is empty), inferred.
Node* AddNms(Graph& g, const std::vector<float>& boxes, const std::vector<float>& scores, int64_t classes,
             const std::vector<Tensor>& optional, int64_t center_point_box = 0) {
  const auto n = static_cast<int64_t>(boxes.size() / 4);
  std::vector<Value*> inputs = {g.AddConstant("boxes", Floats(Shape{1, n, 4}, boxes)),
                                g.AddConstant("scores", Floats(Shape{1, classes, n}, scores))};
  for (size_t i = 0; i < optional.size(); ++i) {
    inputs.push_back(optional[i].empty() ? nullptr : g.AddConstant("opt" + std::to_string(i), optional[i]));
  }
  Node* node = g.AddNode("NonMaxSuppressionV6", "nms", inputs);
  node->attrs().Set("center_point_box", center_point_box);
  Infer(node);
  return node;
}

std::vector<int64_t> Selected(const Node& node) { return RunCpuKernel(node, {})[0].ToInt64Vector(); }

}  // namespace

TEST_CASE("NonMaxSuppressionV6 keeps the best box of each overlapping cluster", "[device][nms]") {
  // Scores order the boxes 3, 0, 1, 2, 4, 5; 1 and 2 overlap 0 with IoU 0.82 > 0.5, 4 overlaps 3.
  const std::vector<int64_t> expected = {0, 0, 3, 0, 0, 0, 0, 0, 5};
  for (int64_t center : {0, 1}) {
    Graph g;
    Node* node = AddNms(g, center ? kCenterBoxes : kCornerBoxes, kScores, 1,
                        {Scalar64(3), Scalar(0.5f), Scalar(0.0f)}, center);
    CHECK(node->output(0)->shape() == Shape{3, 3});
    CHECK(node->output(0)->dtype() == DataType::kInt64);
    CHECK(Selected(*node) == expected);
  }
}

TEST_CASE("NonMaxSuppressionV6 stops at max_output_size and drops scores at the threshold", "[device][nms]") {
  Graph g;
  Node* two = AddNms(g, kCornerBoxes, kScores, 1, {Scalar64(2), Scalar(0.5f)});
  CHECK(Selected(*two) == std::vector<int64_t>{0, 0, 3, 0, 0, 0});
  // Score 0.3 of box 5 is not strictly above 0.3.
  Graph g2;
  Node* thresholded = AddNms(g2, kCornerBoxes, kScores, 1, {Scalar64(10), Scalar(0.5f), Scalar(0.3f)});
  CHECK(thresholded->output(0)->shape() == Shape{2, 3});
  CHECK(Selected(*thresholded) == std::vector<int64_t>{0, 0, 3, 0, 0, 0});
  // No max_output_size selects nothing.
  Graph g3;
  Node* none = AddNms(g3, kCornerBoxes, kScores, 1, {});
  CHECK(none->output(0)->shape() == Shape{0, 3});
}

TEST_CASE("NonMaxSuppressionV6 suppresses only an IoU strictly above the threshold", "[device][nms]") {
  // [0, 0, 1, 2] covers twice the area of [0, 0, 1, 1]: IoU exactly 0.5. Two classes score them in opposite order.
  const std::vector<float> boxes = {0, 0, 1, 1, 0, 0, 1, 2};
  const std::vector<float> scores = {0.9f, 0.8f, 0.1f, 0.2f};
  Graph g;
  Node* kept = AddNms(g, boxes, scores, 2, {Scalar64(5), Scalar(0.5f)});
  CHECK(Selected(*kept) == std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0});
  Graph g2;
  Node* suppressed = AddNms(g2, boxes, scores, 2, {Scalar64(5), Scalar(0.49f)});
  CHECK(Selected(*suppressed) == std::vector<int64_t>{0, 0, 0, 0, 1, 1});
}

TEST_CASE("NonMaxSuppressionV6 row count is unknown until the inputs are known, box encodings are 0 or 1", "[device][nms]") {
  Graph g;
  Node* node = g.AddNode("NonMaxSuppressionV6", "nms",
                         {g.AddInput("boxes", DataType::kFloat, Shape{1, 6, 4}),
                          g.AddInput("scores", DataType::kFloat, Shape{1, 1, 6}),
                          g.AddConstant("max", Scalar64(3))});
  Infer(node);
  CHECK(node->output(0)->shape() == Shape{Shape::kUnknownDim, 3});
  // A kernel built for another count refuses the data.
  SetOutput(node, 0, DataType::kInt64, Shape{2, 3});
  REQUIRE_THROWS_AS(RunCpuKernel(*node, {Floats(Shape{1, 6, 4}, kCornerBoxes), Floats(Shape{1, 1, 6}, kScores)}),
                    Error);
  SetOutput(node, 0, DataType::kInt64, Shape{3, 3});
  CHECK(RunCpuKernel(*node, {Floats(Shape{1, 6, 4}, kCornerBoxes), Floats(Shape{1, 1, 6}, kScores)})[0]
            .ToInt64Vector() == std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5});
  // The box encoding is 0 or 1.
  node->attrs().Set("center_point_box", int64_t{2});
  REQUIRE_THROWS_WITH(Infer(node), Catch::Contains("'nms'") && Catch::Contains("valid: 0 (corners), 1"));
  REQUIRE_THROWS_WITH(CreateCpuKernel(*node), Catch::Contains("'nms'") && Catch::Contains("valid: 0 (corners), 1"));
}

namespace {

// Two 1-channel 4x4 images: v(y, x) = 4y + x, and the same plus 100.
Tensor LinearImages() {
  std::vector<float> v;
  for (int image = 0; image < 2; ++image) {
    for (int i = 0; i < 16; ++i) v.push_back(static_cast<float>(i + image * 100));
  }
  return Floats(Shape{2, 1, 4, 4}, v);
}

Node* AddRoiAlign(Graph& g, int64_t rois, const std::string& mode, const std::string& transform) {
  Node* node = g.AddNode("ROIAlign", "roi",
                         {g.AddInput("x", DataType::kFloat, Shape{2, 1, 4, 4}),
                          g.AddInput("rois", DataType::kFloat, Shape{rois, 4}),
                          g.AddInput("batch", DataType::kInt64, Shape{rois})});
  node->attrs().Set("pooled_height", int64_t{2});
  node->attrs().Set("pooled_width", int64_t{2});
  node->attrs().Set("mode", mode);
  node->attrs().Set("coordinate_transformation_mode", transform);
  Infer(node);
  return node;
}

}  // namespace

TEST_CASE("ROIAlign averages bilinear samples of each bin", "[device][roi_align]") {
  // half_pixel: roi [0.5, 0.5, 2.5, 2.5] is [0, 2] in pixel coordinates; bins of 1 pixel, 1x1 samples each
  // (ceil of the bin size) at their centres, where the linear image is 4y + x. Roi 1 is on image 1 (+100);
  // roi 2 lies more than a pixel outside the image, where samples are 0.
  Graph g;
  Node* node = AddRoiAlign(g, 3, "avg", "half_pixel");
  CHECK(node->output(0)->shape() == Shape{3, 1, 2, 2});
  const Tensor rois = Floats(Shape{3, 4}, {0.5f, 0.5f, 2.5f, 2.5f, 0.5f, 0.5f, 2.5f, 2.5f, 10, 10, 12, 12});
  const Tensor batch = Tensor::FromVector(DataType::kInt64, Shape{3}, std::vector<int64_t>{0, 1, 0});
  CheckClose(RunCpuKernel(*node, {LinearImages(), rois, batch})[0],
             {2.5, 3.5, 6.5, 7.5, 102.5, 103.5, 106.5, 107.5, 0, 0, 0, 0});
  // output_half_pixel (opset 10) has no half-pixel shift: roi [0, 0, 2, 2] is the same region, with spatial_scale
  // 0.5 given as [0, 0, 4, 4]; sample_num 2 averages 2x2 samples, whose mean is again the bin centre.
  Graph g2;
  Node* legacy = AddRoiAlign(g2, 1, "avg", "output_half_pixel");
  legacy->attrs().Set("spatial_scale", 0.5f);
  legacy->attrs().Set("sample_num", int64_t{2});
  CheckClose(RunCpuKernel(*legacy, {LinearImages(), Floats(Shape{1, 4}, {0, 0, 4, 4}),
                                    Tensor::FromVector(DataType::kInt32, Shape{1}, std::vector<int32_t>{0})})[0],
             {2.5, 3.5, 6.5, 7.5});
}

TEST_CASE("ROIAlign max takes the largest weighted corner of any sample", "[device][roi_align]") {
  // output_half_pixel roi [-0.5, -0.5, 1.5, 1.5] with sample_num 2: bin (0, 0) samples (y, x) in {-0.25, 0.25}^2,
  // negative ones clamped to 0. Largest weighted corner: at (0.25, 0) the corner (1, 0) weighs 0.25 * 4 = 1;
  // at (0.25, 0.25) 0.1875 * 4 = 0.75; the others less. So the bin is 1 (an average would be lower).
  Graph g;
  Node* node = AddRoiAlign(g, 1, "max", "output_half_pixel");
  node->attrs().Set("sample_num", int64_t{2});
  const Tensor y = RunCpuKernel(*node, {LinearImages(), Floats(Shape{1, 4}, {-0.5f, -0.5f, 1.5f, 1.5f}),
                                        Tensor::FromVector(DataType::kInt64, Shape{1}, std::vector<int64_t>{0})})[0];
  CHECK(ToDoubles(y)[0] == Approx(1.0));
}

TEST_CASE("ROIAlign: NaN rois give NaN bins; rois and sample counts too large to sample fail naming the roi",
          "[device][roi_align]") {
  const Tensor batch = Tensor::FromVector(DataType::kInt64, Shape{1}, std::vector<int64_t>{0});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Graph g;
  Node* fixed = AddRoiAlign(g, 1, "avg", "output_half_pixel");
  fixed->attrs().Set("sample_num", int64_t{2});
  for (double v : ToDoubles(RunCpuKernel(*fixed, {LinearImages(), Floats(Shape{1, 4}, {nan, 0, 2, 2}), batch})[0])) {
    CHECK(std::isnan(v));
  }
  Graph g2;
  Node* adaptive = AddRoiAlign(g2, 1, "avg", "half_pixel");  // sample_num 0: ceil(bin size) samples
  CHECK_THROWS_WITH(RunCpuKernel(*adaptive, {LinearImages(), Floats(Shape{1, 4}, {0, 0, 1e30f, 1e30f}), batch}),
                    Catch::Contains("'roi'") && Catch::Contains("roi 0 has bins of"));
  CHECK_THROWS_WITH(RunCpuKernel(*adaptive, {LinearImages(), Floats(Shape{1, 4}, {0, 0, nan, 2}), batch}),
                    Catch::Contains("roi 0 has bins of nan pixels"));
  Graph g3;  // an empty image: every sample falls outside it
  Node* empty = g3.AddNode("ROIAlign", "roi",
                           {g3.AddInput("x", DataType::kFloat, Shape{1, 1, 0, 4}),
                            g3.AddInput("rois", DataType::kFloat, Shape{1, 4}),
                            g3.AddInput("batch", DataType::kInt64, Shape{1})});
  empty->attrs().Set("pooled_height", int64_t{2});
  empty->attrs().Set("pooled_width", int64_t{2});
  empty->attrs().Set("mode", std::string("avg"));
  empty->attrs().Set("coordinate_transformation_mode", std::string("half_pixel"));
  Infer(empty);
  CheckClose(RunCpuKernel(*empty, {Floats(Shape{1, 1, 0, 4}, {}), Floats(Shape{1, 4}, {0, 0, 2, 2}), batch})[0],
             {0, 0, 0, 0});
  fixed->attrs().Set("sample_num", int64_t{1} << 31);
  CHECK_THROWS_WITH(RunCpuKernel(*fixed, {LinearImages(), Floats(Shape{1, 4}, {0, 0, 2, 2}), batch}),
                    Catch::Contains("roi 0 takes 2147483648x2147483648 samples"));
}

namespace {

// The ONNX reference of one ROIAlign bin, sample by sample: four corner reads
// per bilinear sample, zero outside, clamped at the edges.
double ReferenceBin(const std::vector<float>& image, int64_t height, int64_t width, double y0, double x0,
                    double bin_h, double bin_w, int64_t grid_h, int64_t grid_w, bool max_mode) {
  double acc = max_mode ? -std::numeric_limits<double>::infinity() : 0.0;
  for (int64_t iy = 0; iy < grid_h; ++iy) {
    for (int64_t ix = 0; ix < grid_w; ++ix) {
      double y = y0 + (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
      double x = x0 + (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
      std::array<double, 4> terms{};
      if (y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 && x <= static_cast<double>(width)) {
        y = std::min(std::max(y, 0.0), static_cast<double>(height - 1));
        x = std::min(std::max(x, 0.0), static_cast<double>(width - 1));
        const auto yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x);
        const int64_t yh = std::min(yl + 1, height - 1), xh = std::min(xl + 1, width - 1);
        const double ly = y - static_cast<double>(yl), lx = x - static_cast<double>(xl);
        auto at = [&](int64_t r, int64_t c) { return static_cast<double>(image[static_cast<size_t>(r * width + c)]); };
        terms = {(1 - ly) * (1 - lx) * at(yl, xl), (1 - ly) * lx * at(yl, xh), ly * (1 - lx) * at(yh, xl),
                 ly * lx * at(yh, xh)};
      }
      if (max_mode) {
        acc = std::max(acc, *std::max_element(terms.begin(), terms.end()));
      } else {
        acc += terms[0] + terms[1] + terms[2] + terms[3];
      }
    }
  }
  return max_mode ? acc : acc / static_cast<double>(grid_h * grid_w);
}

}  // namespace

TEST_CASE("ROIAlign's grouped samples match the sample-by-sample ONNX reference", "[device][roi_align]") {
  // Random rois partly outside a signed image and an all-negative one (where "max" takes the least weights),
  // fixed grids from 1 to 64 samples (many samples between the same pixels, where the kernel groups them) and
  // adaptive ones, both modes and both coordinate rules.
  constexpr int64_t kHeight = 7, kWidth = 5, kRois = 6, kPooled = 3;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> pixel(-4.0f, 4.0f), corner(-3.0f, 9.0f), extent(0.2f, 8.0f);
  std::vector<float> images(2 * kHeight * kWidth);
  for (size_t i = 0; i < images.size(); ++i) images[i] = i < images.size() / 2 ? pixel(rng) : -4.5f - pixel(rng);
  std::vector<float> rois;
  for (int64_t r = 0; r < kRois; ++r) {
    const float x1 = corner(rng), y1 = corner(rng);
    rois.insert(rois.end(), {x1, y1, x1 + extent(rng), y1 + extent(rng)});
  }
  std::vector<int64_t> image_of_roi;
  for (int64_t r = 0; r < kRois; ++r) image_of_roi.push_back(r % 2);
  const Tensor batch = Tensor::FromVector(DataType::kInt64, Shape{kRois}, image_of_roi);
  for (const char* mode : {"avg", "max"}) {
    for (const char* transform : {"half_pixel", "output_half_pixel"}) {
      for (int64_t sample_num : {0, 1, 2, 5, 64}) {
        Graph g;
        Node* node = g.AddNode("ROIAlign", "roi",
                               {g.AddInput("x", DataType::kFloat, Shape{2, 1, kHeight, kWidth}),
                                g.AddInput("rois", DataType::kFloat, Shape{kRois, 4}),
                                g.AddInput("batch", DataType::kInt64, Shape{kRois})});
        node->attrs().Set("pooled_height", kPooled);
        node->attrs().Set("pooled_width", kPooled);
        node->attrs().Set("sample_num", sample_num);
        node->attrs().Set("spatial_scale", 0.75f);
        node->attrs().Set("mode", std::string(mode));
        node->attrs().Set("coordinate_transformation_mode", std::string(transform));
        Infer(node);
        const std::vector<double> got = ToDoubles(RunCpuKernel(
            *node, {Floats(Shape{2, 1, kHeight, kWidth}, images), Floats(Shape{kRois, 4}, rois), batch})[0]);
        const bool half_pixel = std::string(transform) == "half_pixel";
        const double offset = half_pixel ? 0.5 : 0.0;
        for (int64_t r = 0; r < kRois; ++r) {
          const double x0 = rois[r * 4] * 0.75 - offset, y0 = rois[r * 4 + 1] * 0.75 - offset;
          double roi_w = rois[r * 4 + 2] * 0.75 - offset - x0, roi_h = rois[r * 4 + 3] * 0.75 - offset - y0;
          if (!half_pixel) {
            roi_w = std::max(roi_w, 1.0);
            roi_h = std::max(roi_h, 1.0);
          }
          const double bin_h = roi_h / kPooled, bin_w = roi_w / kPooled;
          const int64_t grid_h = sample_num > 0 ? sample_num : static_cast<int64_t>(std::ceil(bin_h));
          const int64_t grid_w = sample_num > 0 ? sample_num : static_cast<int64_t>(std::ceil(bin_w));
          for (int64_t ph = 0; ph < kPooled; ++ph) {
            for (int64_t pw = 0; pw < kPooled; ++pw) {
              INFO(mode << " " << transform << " sample_num " << sample_num << " roi " << r << " bin " << ph << ","
                        << pw);
              const std::vector<float> image(images.begin() + image_of_roi[r] * kHeight * kWidth,
                                             images.begin() + (image_of_roi[r] + 1) * kHeight * kWidth);
              const double want = ReferenceBin(image, kHeight, kWidth, y0 + ph * bin_h, x0 + pw * bin_w, bin_h,
                                               bin_w, grid_h, grid_w, std::string(mode) == "max");
              CHECK(got[static_cast<size_t>((r * kPooled + ph) * kPooled + pw)] ==
                    Approx(want).margin(1e-5).epsilon(1e-5));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("ROIAlign rejects unknown modes and batch indices outside x", "[device][roi_align]") {
  Graph g;
  Node* node = AddRoiAlign(g, 1, "avg", "half_pixel");
  REQUIRE_THROWS_AS(RunCpuKernel(*node, {LinearImages(), Floats(Shape{1, 4}, {0, 0, 1, 1}),
                                         Tensor::FromVector(DataType::kInt64, Shape{1}, std::vector<int64_t>{2})}),
                    Error);
  node->attrs().Set("mode", std::string("median"));
  REQUIRE_THROWS_WITH(Infer(node), Catch::Contains("'roi'") && Catch::Contains("valid: avg, max"));
  REQUIRE_THROWS_WITH(CreateCpuKernel(*node), Catch::Contains("'roi'") && Catch::Contains("valid: avg, max"));
}

namespace {

// GridSampler2D of the first linear image at grid points given as (x, y) pairs.
std::vector<double> SampleGrid(const std::string& mode, const std::string& padding, bool align_corners,
                               const std::vector<float>& points) {
  const auto n = static_cast<int64_t>(points.size() / 2);
  Graph g;
  Node* node = g.AddNode("GridSampler2D", "gs",
                         {g.AddInput("x", DataType::kFloat, Shape{1, 1, 4, 4}),
                          g.AddInput("grid", DataType::kFloat, Shape{1, 1, n, 2})});
  node->attrs().Set("interpolation_mode", mode);
  node->attrs().Set("padding_mode", padding);
  node->attrs().Set("align_corners", align_corners);
  Infer(node);
  REQUIRE(node->output(0)->shape() == Shape{1, 1, 1, n});
  std::vector<float> first(16);
  for (int i = 0; i < 16; ++i) first[i] = static_cast<float>(i);
  return ToDoubles(RunCpuKernel(*node, {Floats(Shape{1, 1, 4, 4}, first), Floats(Shape{1, 1, n, 2}, points)})[0]);
}

}  // namespace

TEST_CASE("GridSampler2D interpolates a linear image exactly", "[device][grid_sample]") {
  // align_corners: -1 and 1 are pixels 0 and 3, so (x, y) -> (1.5 (x + 1), 1.5 (y + 1)) and v = 4y + x.
  const std::vector<float> points = {-1, -1, 1, 1, 0, 0, -1, 1, 0.5f, -0.5f};
  const std::vector<double> linear = {0, 15, 7.5, 12, 0.75 * 4 + 2.25};
  CHECK_THAT(SampleGrid("bilinear", "zeros", true, points), Catch::Matchers::Approx(linear));
  // Bicubic convolution reproduces linear functions where all 4x4 taps are inside: the centre.
  CHECK(SampleGrid("bicubic", "zeros", true, {0, 0})[0] == Approx(7.5));
  // Nearest rounds half to even: 1.5 -> 2, and 2.25 -> 2, 0.75 -> 1.
  CHECK_THAT(SampleGrid("nearest", "zeros", true, {0, 0, 0.5f, -0.5f}),
             Catch::Matchers::Approx(std::vector<double>{10, 6}));
  // Without align_corners -1 and 1 are the outer edges: x -> (4 (x + 1) - 1) / 2, so 0 is pixel 1.5.
  CHECK(SampleGrid("bilinear", "zeros", false, {0, 0})[0] == Approx(7.5));
}

TEST_CASE("GridSampler2D pads with zeros, the border or reflections", "[device][grid_sample]") {
  // align_corners, (x, y) = (1.5, 0): pixel (3.75, 1.5), beyond the last column.
  // zeros: the column-4 taps are 0, 0.25 * (v(1.5, 3)) = 0.25 * 9; border: x clamps to 3, v = 9;
  // reflection about [0, 3]: x = 2.25, v = 8.25.
  CHECK(SampleGrid("bilinear", "zeros", true, {1.5f, 0})[0] == Approx(2.25));
  CHECK(SampleGrid("bilinear", "border", true, {1.5f, 0})[0] == Approx(9));
  CHECK(SampleGrid("bilinear", "reflection", true, {1.5f, 0})[0] == Approx(8.25));
  // Far outside with nearest: zeros gives 0, border the corner pixel 15.
  CHECK(SampleGrid("nearest", "zeros", true, {5, 5})[0] == 0);
  CHECK(SampleGrid("nearest", "border", true, {5, 5})[0] == 15);
}

TEST_CASE("GridSampler2D: huge and infinite grid points pad, NaN ones sample NaN", "[device][grid_sample]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    INFO(mode);
    CHECK_THAT(SampleGrid(mode, "zeros", true, {1e30f, 0, -inf, 0, 0, inf}),
               Catch::Matchers::Approx(std::vector<double>{0, 0, 0}));
    CHECK_THAT(SampleGrid(mode, "border", false, {1e30f, -1e30f, inf, inf}),
               Catch::Matchers::Approx(std::vector<double>{3, 15}));
    for (double v : SampleGrid(mode, "zeros", true, {nan, 0, 0, nan})) CHECK(std::isnan(v));
    for (double v : SampleGrid(mode, "reflection", true, {inf, 0})) CHECK(std::isnan(v));
  }
}

TEST_CASE("GridSampler2D names the node and the valid modes", "[device][grid_sample]") {
  Graph g;
  Node* node = g.AddNode("GridSampler2D", "gs",
                         {g.AddInput("x", DataType::kFloat, Shape{1, 1, 4, 4}),
                          g.AddInput("grid", DataType::kFloat, Shape{1, 1, 1, 2})});
  node->attrs().Set("interpolation_mode", std::string("linear"));
  REQUIRE_THROWS_WITH(Infer(node), Catch::Contains("'gs'") && Catch::Contains("valid: bilinear, nearest, bicubic"));
  node->attrs().Set("interpolation_mode", std::string("bilinear"));
  node->attrs().Set("padding_mode", std::string("mirror"));
  REQUIRE_THROWS_WITH(Infer(node), Catch::Contains("valid: zeros, border, reflection"));
}

namespace {

std::vector<double> Window(const std::string& op, int64_t size, bool periodic, DataType dtype) {
  Graph g;
  Node* node = g.AddNode(op, "w", {g.AddConstant("size", Scalar64(size))});
  node->attrs().Set("periodic", periodic);
  node->attrs().Set("dtype", static_cast<int64_t>(dtype));
  Infer(node);
  REQUIRE(node->output(0)->shape() == Shape{size});
  REQUIRE(node->output(0)->dtype() == dtype);
  return ToDoubles(RunCpuKernel(*node, {})[0]);
}

}  // namespace

TEST_CASE("Window generators follow the ONNX cosine sums", "[device][window]") {
  // Hann: 0.5 - 0.5 cos(2 pi k / N); periodic N = size, symmetric N = size - 1.
  CHECK_THAT(Window("HannWindow", 4, true, DataType::kFloat),
             Catch::Matchers::Approx(std::vector<double>{0, 0.5, 1, 0.5}).margin(1e-7));
  CHECK_THAT(Window("HannWindow", 5, false, DataType::kDouble),
             Catch::Matchers::Approx(std::vector<double>{0, 0.5, 1, 0.5, 0}).margin(1e-15));
  // Hamming: 25/46 - 21/46 cos(2 pi k / N).
  CHECK_THAT(Window("HammingWindow", 4, true, DataType::kDouble),
             Catch::Matchers::Approx(std::vector<double>{4.0 / 46, 25.0 / 46, 1, 25.0 / 46}).margin(1e-15));
  // Blackman: 0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N); symmetric size 3 is 0, 1, 0.
  CHECK_THAT(Window("BlackmanWindow", 3, false, DataType::kDouble),
             Catch::Matchers::Approx(std::vector<double>{0, 1, 0}).margin(1e-15));
  const double q = 0.42 - 0.5 * std::cos(std::numbers::pi / 2) + 0.08 * std::cos(std::numbers::pi);
  CHECK_THAT(Window("BlackmanWindow", 4, true, DataType::kDouble),
             Catch::Matchers::Approx(std::vector<double>{0, q, 1, q}).margin(1e-15));
}

namespace {

// The DFT definition in std::complex<double>: x [outer, n, inner] (complex), result [outer, m, inner] of length
// `length` (x zero-padded or cut), the first m outputs.
std::vector<std::complex<double>> ReferenceDft(const std::vector<std::complex<double>>& x, int64_t outer, int64_t n,
                                               int64_t inner, int64_t length, int64_t m, bool inverse) {
  std::vector<std::complex<double>> y(static_cast<size_t>(outer * m * inner));
  const double sign = inverse ? 1 : -1;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t k = 0; k < m; ++k) {
        std::complex<double> sum = 0;
        for (int64_t t = 0; t < std::min(n, length); ++t) {
          sum += x[(o * n + t) * inner + i] *
                 std::polar(1.0, sign * 2 * std::numbers::pi * static_cast<double>(k * t) /
                                     static_cast<double>(length));
        }
        y[(o * m + k) * inner + i] = inverse ? sum / static_cast<double>(length) : sum;
      }
    }
  }
  return y;
}

std::vector<double> Interleaved(const std::vector<std::complex<double>>& values) {
  std::vector<double> out;
  for (const auto& v : values) {
    out.push_back(v.real());
    out.push_back(v.imag());
  }
  return out;
}

}  // namespace

TEST_CASE("DFT of real signals, zero-padded and onesided", "[device][dft]") {
  // x [2, 5, 3, 1] along axis 1, dft_length 8: 5 samples and 3 zeros, onesided keeps 8 / 2 + 1 = 5 outputs.
  std::mt19937 rng(31);
  const Tensor x = RandomTensor(DataType::kFloat, Shape{2, 5, 3, 1}, rng);
  std::vector<std::complex<double>> xs;
  for (double v : ToDoubles(x)) xs.emplace_back(v, 0.0);
  for (bool onesided : {false, true}) {
    Graph g;
    Node* node = g.AddNode("DFT", "dft",
                           {g.AddInput("x", DataType::kFloat, x.shape()), g.AddConstant("len", Scalar64(8))});
    node->attrs().Set("onesided", onesided);
    Infer(node);
    const int64_t m = onesided ? 5 : 8;
    REQUIRE(node->output(0)->shape() == Shape{2, m, 3, 2});
    CheckClose(RunCpuKernel(*node, {x})[0], Interleaved(ReferenceDft(xs, 2, 5, 3, 8, m, false)), 1e-5, 1e-5);
  }
}

TEST_CASE("DFT inverse of complex signals along the last signal axis, cut to dft_length", "[device][dft]") {
  std::mt19937 rng(32);
  const Tensor x = RandomTensor(DataType::kDouble, Shape{3, 6, 2}, rng);
  const auto flat = ToDoubles(x);
  std::vector<std::complex<double>> xs;
  for (size_t i = 0; i < flat.size(); i += 2) xs.emplace_back(flat[i], flat[i + 1]);
  Graph g;
  Node* node = g.AddNode("DFT", "idft",
                         {g.AddInput("x", DataType::kDouble, x.shape()), g.AddConstant("len", Scalar64(4))});
  node->attrs().Set("axis", int64_t{-2});
  node->attrs().Set("inverse", true);
  Infer(node);
  REQUIRE(node->output(0)->shape() == Shape{3, 4, 2});
  CheckClose(RunCpuKernel(*node, {x})[0], Interleaved(ReferenceDft(xs, 3, 6, 1, 4, 4, true)), 1e-12, 1e-12);
  // The last dim holds the real and imaginary parts; it cannot be the signal axis.
  node->attrs().Set("axis", int64_t{-1});
  REQUIRE_THROWS_WITH(Infer(node), Catch::Contains("'idft'") && Catch::Contains("axis"));
}

TEST_CASE("STFT transforms each windowed frame", "[device][stft]") {
  // signal [2, 10, 1], frame_step 3, a window of 4: frames (10 - 4) / 3 + 1 = 3, onesided bins 4 / 2 + 1 = 3.
  std::mt19937 rng(33);
  const Tensor signal = RandomTensor(DataType::kFloat, Shape{2, 10, 1}, rng);
  const Tensor window = RandomTensor(DataType::kFloat, Shape{4}, rng, 0, 1);
  Graph g;
  Node* node = g.AddNode("STFT", "stft",
                         {g.AddInput("signal", DataType::kFloat, signal.shape()), g.AddConstant("step", Scalar64(3)),
                          g.AddInput("window", DataType::kFloat, window.shape())});
  Infer(node);
  REQUIRE(node->output(0)->shape() == Shape{2, 3, 3, 2});
  const auto xs = ToDoubles(signal), ws = ToDoubles(window);
  std::vector<double> expected;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t f = 0; f < 3; ++f) {
      std::vector<std::complex<double>> frame;
      for (int64_t n = 0; n < 4; ++n) frame.emplace_back(xs[b * 10 + f * 3 + n] * ws[n], 0.0);
      const auto bins = Interleaved(ReferenceDft(frame, 1, 4, 1, 4, 3, false));
      expected.insert(expected.end(), bins.begin(), bins.end());
    }
  }
  CheckClose(RunCpuKernel(*node, {signal, Tensor(), window})[0], expected, 1e-5, 1e-5);
  // Neither a window nor a frame_length: the frame is undefined.
  Graph g2;
  Node* bare = g2.AddNode(
      "STFT", "bare", {g2.AddInput("signal", DataType::kFloat, signal.shape()), g2.AddConstant("step", Scalar64(3))});
  REQUIRE_THROWS_WITH(Infer(bare), Catch::Contains("'bare'") && Catch::Contains("frame_length"));
}

TEST_CASE("MelWeightMatrix builds triangles between mel-spaced bins", "[device][mel]") {
  // 2 filters, dft_length 64 (33 bins), 1000 Hz, edges 0 and 500 Hz: 500 Hz is 607.45 mel; points every
  // 607.45 / 4 mel are 0, 101.0, 216.5, 348.7 Hz, i.e. bins floor(65 hz / 1000) = 0, 6, 14, 22.
  Graph g;
  Node* node = g.AddNode("MelWeightMatrix", "mel",
                         {g.AddConstant("bins", Scalar64(2)), g.AddConstant("dft", Scalar64(64)),
                          g.AddConstant("rate", Scalar64(1000)), g.AddConstant("low", Scalar(0)),
                          g.AddConstant("high", Scalar(500))});
  node->attrs().Set("dtype", static_cast<int64_t>(DataType::kDouble));
  Infer(node);
  REQUIRE(node->output(0)->shape() == Shape{33, 2});
  std::vector<double> expected(66, 0.0);
  for (int j = 0; j <= 6; ++j) expected[j * 2] = j / 6.0;             // filter 0 rises over bins 0..6
  for (int j = 6; j < 14; ++j) expected[j * 2] = (14 - j) / 8.0;      // and falls to bin 14
  for (int j = 6; j <= 14; ++j) expected[j * 2 + 1] = (j - 6) / 8.0;  // filter 1 rises over 6..14
  for (int j = 14; j < 22; ++j) expected[j * 2 + 1] = (22 - j) / 8.0;
  CheckClose(RunCpuKernel(*node, {})[0], expected, 0, 1e-15);
}

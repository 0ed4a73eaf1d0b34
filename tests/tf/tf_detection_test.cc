// NonMaxSuppressionV4/V5 imported from a GraphDef against TensorFlow's greedy
// selection written here in float64: candidates above score_threshold by
// decreasing score (equal scores: lower index first), each kept unless its
// IoU with a kept box exceeds iou_threshold, boxes given by two corners in
// either order, up to max_output_size; padded to it when asked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "ge/compiled_model.h"
#include "ge/tf_importer.h"
#include "test_support.h"
#include "tf_graph_writer.h"

using namespace ge;
using namespace ge::test::tf_writer;

namespace {

constexpr int64_t kBoxes = 40, kMaxOutput = 6;
constexpr float kIou = 0.4f, kScoreThreshold = 0.2f;

double Iou(const std::vector<float>& b, int64_t i, int64_t j) {
  auto box = [&](int64_t k) {
    const float* v = &b[static_cast<size_t>(k * 4)];
    return std::array<double, 4>{std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
  };
  const auto a = box(i), c = box(j);
  const double area_a = (a[2] - a[0]) * (a[3] - a[1]), area_c = (c[2] - c[0]) * (c[3] - c[1]);
  if (area_a <= 0 || area_c <= 0) return 0;
  const double h = std::max(0.0, std::min(a[2], c[2]) - std::max(a[0], c[0]));
  const double w = std::max(0.0, std::min(a[3], c[3]) - std::max(a[1], c[1]));
  return h * w / (area_a + area_c - h * w);
}

std::vector<int64_t> GreedySelection(const std::vector<float>& boxes, const std::vector<float>& scores) {
  std::vector<int64_t> order(kBoxes);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  std::vector<int64_t> kept;
  for (int64_t candidate : order) {
    if (static_cast<int64_t>(kept.size()) == kMaxOutput || !(scores[candidate] > kScoreThreshold)) break;
    const bool suppressed =
        std::any_of(kept.begin(), kept.end(), [&](int64_t k) { return Iou(boxes, k, candidate) > kIou; });
    if (!suppressed) kept.push_back(candidate);
  }
  return kept;
}

}  // namespace

TEST_CASE("NonMaxSuppressionV4/V5 select as TensorFlow's greedy suppression", "[tf][nms]") {
  const std::string op = GENERATE(as<std::string>{}, "NonMaxSuppressionV4", "NonMaxSuppressionV5");
  const bool pad = GENERATE(false, true);
  INFO(op << (pad ? " padded" : ""));
  tf::GraphDef g;
  Placeholder(g, "boxes", {kBoxes, 4});
  Placeholder(g, "scores", {kBoxes});
  Const(g, "max_output_size", IntTensor({}, {kMaxOutput}));
  Const(g, "iou_threshold", FloatTensor({}, {kIou}));
  Const(g, "score_threshold", FloatTensor({}, {kScoreThreshold}));
  std::vector<std::string> inputs = {"boxes", "scores", "max_output_size", "iou_threshold", "score_threshold"};
  const bool v5 = op == "NonMaxSuppressionV5";
  if (v5) {
    Const(g, "soft_nms_sigma", FloatTensor({}, {0.0f}));
    inputs.push_back("soft_nms_sigma");
  }
  (*Add(g, "nms", op, inputs).mutable_attr())["pad_to_max_output_size"].set_b(pad);
  const std::filesystem::path path = test::TempDir("tf_nms") / "nms.pb";
  std::ofstream(path, std::ios::binary) << g.SerializeAsString();
  TfImportOptions options;
  options.output_nodes = v5 ? std::vector<std::string>{"nms:0", "nms:1", "nms:2"}
                            : std::vector<std::string>{"nms:0", "nms:1"};
  const auto model = CompiledModel::Compile(ImportTensorFlowFile(path.string(), options));

  // Boxes in both corner orders, many overlapping; scores with ties.
  std::vector<float> boxes = test::RandomVector(kBoxes * 4, 3, 0.0f, 1.0f);
  std::vector<float> scores = test::RandomVector(kBoxes, 4, 0.0f, 1.0f);
  for (int64_t i = 0; i < kBoxes; i += 5) scores[i + 1] = scores[i];
  const std::vector<int64_t> expected = GreedySelection(boxes, scores);
  REQUIRE(expected.size() > 2);

  std::vector<Tensor> feeds;
  for (const TensorInfo& input : model->inputs()) {
    feeds.push_back(input.name == "boxes" ? Tensor::FromVector(DataType::kFloat, Shape({kBoxes, 4}), boxes)
                                          : Tensor::FromVector(DataType::kFloat, Shape({kBoxes}), scores));
  }
  const std::vector<Tensor> out = model->Run(feeds);
  const size_t selected = expected.size();
  const int64_t rows = pad ? kMaxOutput : static_cast<int64_t>(selected);
  REQUIRE(out[0].dtype() == DataType::kInt32);
  REQUIRE(out[0].shape() == Shape({rows}));
  for (int64_t i = 0; i < rows; ++i) {
    INFO("row " << i);
    CHECK(out[0].data_as<int32_t>()[i] == (i < static_cast<int64_t>(selected) ? expected[i] : 0));
  }
  if (v5) {
    REQUIRE(out[1].shape() == Shape({rows}));
    for (int64_t i = 0; i < rows; ++i) {
      CHECK(out[1].data_as<float>()[i] == (i < static_cast<int64_t>(selected) ? scores[expected[i]] : 0.0f));
    }
  }
  const Tensor& valid = out.back();
  REQUIRE(valid.dtype() == DataType::kInt32);
  REQUIRE(valid.shape() == Shape());
  CHECK(valid.data_as<int32_t>()[0] == static_cast<int32_t>(selected));
}

// NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss -> NLLLoss (after a
// LogSoftmaxV2 for the latter) and Dropout's all-true mask in inference.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "graph/ops/loss_ops.h"
#include "onnx_model_builder.h"

namespace ge::test {

TEST_CASE("NegativeLogLikelihoodLoss keeps its attributes, an absent ignore_index ignores nothing") {
  OnnxModelBuilder b(13);
  b.Input("x", {3, 4, 2}).Input("t", {3, 2}, kOnnxInt64).Input("w", {4}).Output("a", {}).Output("b", {3, 2});
  SetAttr(b.Node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"a"}, "weighted"), "ignore_index", int64_t{-1});
  SetAttr(b.Node("NegativeLogLikelihoodLoss", {"x", "t"}, {"b"}, "plain"), "reduction", std::string("none"));
  auto graph = b.Import();
  Node* weighted = graph->FindNode("weighted");
  REQUIRE(weighted);
  CHECK(weighted->op_type() == "NLLLoss");
  CHECK(weighted->num_inputs() == 3);
  CHECK(weighted->attrs().GetString("reduction") == "mean");
  CHECK(weighted->attrs().GetInt("ignore_index") == -1);
  Node* plain = graph->FindNode("plain");
  CHECK(plain->attrs().GetString("reduction") == "none");
  CHECK(plain->attrs().GetInt("ignore_index") == kNllLossNoIgnoreIndex);
}

TEST_CASE("SoftmaxCrossEntropyLoss is NLLLoss of LogSoftmaxV2 over the class axis, also its log_prob") {
  OnnxModelBuilder b(13);
  b.Input("x", {3, 4, 2}).Input("t", {3, 2}, kOnnxInt64).Output("loss", {}).Output("log_prob", {3, 4, 2});
  SetAttr(b.Node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss", "log_prob"}, "sce"), "reduction",
          std::string("sum"));
  auto graph = b.Import();
  Node* loss = graph->FindNode("sce");
  REQUIRE(loss);
  CHECK(loss->op_type() == "NLLLoss");
  CHECK(loss->attrs().GetString("reduction") == "sum");
  Node* log_softmax = loss->input(0)->producer();
  CHECK(log_softmax->op_type() == "LogSoftmaxV2");
  CHECK(log_softmax->attrs().GetInts("axes") == std::vector<int64_t>{1});
  CHECK(graph->outputs()[1]->producer() == log_softmax);
}

TEST_CASE("Dropout's mask in inference is Fill(Shape(x), true), before opset 10 it is refused") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 3}).Output("y", {2, 3}).Output("mask", {2, 3}, onnx::TensorProto::BOOL);
  b.Node("Dropout", {"x"}, {"y", "mask"}, "drop");
  auto graph = b.Import();
  CHECK(graph->FindNode("drop")->op_type() == "Identity");
  Node* fill = graph->outputs()[1]->producer();
  CHECK(fill->op_type() == "Fill");
  CHECK(fill->input(0)->producer()->op_type() == "Shape");
  CHECK(fill->input(1)->producer()->op_type() == "Const");

  // training_mode = true drops nothing with a constant ratio of 0; any other ratio is random.
  for (float ratio : {0.0f, 0.5f}) {
    OnnxModelBuilder training(13);
    training.Input("x", {2, 3}).Output("y", {2, 3});
    training.Initializer(OnnxFloatTensor("ratio", {}, {ratio}));
    onnx::TensorProto mode;
    mode.set_name("mode");
    mode.set_data_type(onnx::TensorProto::BOOL);
    mode.add_int32_data(1);
    training.Initializer(mode);
    training.Node("Dropout", {"x", "ratio", "mode"}, {"y"}, "drop");
    if (ratio == 0.0f) {
      CHECK(training.Import()->FindNode("drop")->op_type() == "Identity");
    } else {
      CHECK_THROWS_WITH(training.Import(), Catch::Contains("'drop'") && Catch::Contains("ratio of 0"));
    }
  }

  OnnxModelBuilder old(9);
  old.Input("x", {2, 3}).Output("y", {2, 3}).Output("mask", {2, 3});
  old.Node("Dropout", {"x"}, {"y", "mask"}, "drop");
  CHECK_THROWS_WITH(old.Import(), Catch::Contains("'drop'") && Catch::Contains("mask"));
}

}  // namespace ge::test

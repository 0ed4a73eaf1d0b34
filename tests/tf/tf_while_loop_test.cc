// TensorFlow 1 while loops and TensorLists, on a GraphDef written here the
// way tf.map_fn freezes: a TensorList unstacked from x, a reserved output
// list, a counter, and an invariant read through an Enter with is_constant;
// the body reads element i, scales it, adds i and writes it to slot i. The
// import makes one ge Loop of it and must give x * scale + i per row. And
// what the import refuses: a nested loop, a conditional (Switch/Merge outside
// a loop).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/tf_importer.h"
#include "test_support.h"
#include "tf_graph_writer.h"

using namespace ge;
using namespace ge::test::tf_writer;

namespace {

constexpr int64_t kRows = 3, kCols = 4;

void SetType(tf::NodeDef& node, const std::string& attr, tf::DataType type) { (*node.mutable_attr())[attr].set_type(type); }

tf::NodeDef& Enter(tf::GraphDef& g, const std::string& name, const std::string& input, bool constant = false) {
  tf::NodeDef& enter = Add(g, name, "Enter", {input});
  (*enter.mutable_attr())["frame_name"].set_s("loop");
  (*enter.mutable_attr())["is_constant"].set_b(constant);
  return enter;
}

// One loop variable: Enter -> Merge(Enter, NextIteration) -> Switch(Merge, LoopCond).
void Variable(tf::GraphDef& g, const std::string& name, const std::string& initial) {
  Enter(g, name + "/enter", initial);
  Add(g, name + "/merge", "Merge", {name + "/enter", name + "/next"});
  Add(g, name + "/switch", "Switch", {name + "/merge", "cond"});
}

tf::GraphDef MapGraph() {
  tf::GraphDef g;
  Placeholder(g, "x", {kRows, kCols});
  Placeholder(g, "scale", {});
  Const(g, "row_shape", IntTensor({1}, {kCols}));
  Const(g, "unknown_shape", IntTensor({}, {-1}));
  Const(g, "rows", IntTensor({}, {kRows}));
  Const(g, "zero", IntTensor({}, {0}));
  SetType(Add(g, "in_list", "TensorListFromTensor", {"x", "row_shape"}), "element_dtype", tf::DT_FLOAT);
  SetType(Add(g, "out_list", "TensorListReserve", {"unknown_shape", "rows"}), "element_dtype", tf::DT_FLOAT);

  Variable(g, "i", "zero");
  Variable(g, "in", "in_list");
  Variable(g, "out", "out_list");
  Enter(g, "scale/enter", "scale", /*constant=*/true);
  Const(g, "limit", IntTensor({}, {kRows}));
  g.mutable_node(g.node_size() - 1)->add_input("^i/merge");  // as TensorFlow ties a frame's constants to it
  Add(g, "less", "Less", {"i/merge", "limit"});
  Add(g, "cond", "LoopCond", {"less"});

  SetType(Add(g, "item", "TensorListGetItem", {"in/switch:1", "i/switch:1", "row_shape"}), "element_dtype",
          tf::DT_FLOAT);
  Add(g, "scaled", "Mul", {"item", "scale/enter"});
  SetType(Add(g, "i_float", "Cast", {"i/switch:1"}), "DstT", tf::DT_FLOAT);
  Add(g, "y", "AddV2", {"scaled", "i_float"});
  SetType(Add(g, "written", "TensorListSetItem", {"out/switch:1", "i/switch:1", "y"}), "element_dtype", tf::DT_FLOAT);
  Const(g, "one", IntTensor({}, {1}));
  g.mutable_node(g.node_size() - 1)->add_input("^i/switch");
  Add(g, "i_next", "AddV2", {"i/switch:1", "one"});
  Add(g, "i/next", "NextIteration", {"i_next"});
  Add(g, "in/next", "NextIteration", {"in/switch:1"});
  Add(g, "out/next", "NextIteration", {"written"});
  Add(g, "out/exit", "Exit", {"out/switch"});
  tf::NodeDef& stack = Add(g, "stacked", "TensorListStack", {"out/exit", "row_shape"});
  SetType(stack, "element_dtype", tf::DT_FLOAT);
  (*stack.mutable_attr())["num_elements"].set_i(kRows);
  return g;
}

std::string Save(const tf::GraphDef& g, const std::string& name) {
  const std::filesystem::path path = test::TempDir("tf_while_" + name) / "model.pb";
  std::ofstream(path, std::ios::binary) << g.SerializeAsString();
  return path.string();
}

ErrorCode CodeOf(const tf::GraphDef& g, const std::string& name, std::string* message) {
  try {
    ImportTensorFlowFile(Save(g, name));
  } catch (const Error& e) {
    *message = e.what();
    return e.code();
  }
  return ErrorCode::kOk;
}

}  // namespace

TEST_CASE("a TensorFlow 1 while loop over TensorLists becomes one ge Loop", "[tf][while]") {
  const std::unique_ptr<Graph> graph = ImportTensorFlowFile(Save(MapGraph(), "map"));
  size_t loops = 0;
  for (const Node* node : graph->nodes()) loops += node->op_type() == "Loop";
  CHECK(loops == 1);
  const auto model = CompiledModel::Compile(graph->Clone());
  REQUIRE(model->outputs().size() == 1);
  CHECK(model->outputs()[0].name == "stacked");
  const std::vector<float> x = test::RandomVector(kRows * kCols, 21);
  const float scale = 1.75f;
  std::vector<Tensor> feeds;
  for (const TensorInfo& input : model->inputs()) {
    feeds.push_back(input.name == "x" ? Tensor::FromVector(DataType::kFloat, Shape({kRows, kCols}), x)
                                      : Tensor::FromVector(DataType::kFloat, Shape(), std::vector<float>{scale}));
  }
  for (int run = 0; run < 2; ++run) {  // the second run reuses what the first built
    const Tensor out = model->Run(feeds).at(0);
    REQUIRE(out.shape() == Shape({kRows, kCols}));
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t c = 0; c < kCols; ++c) {
        INFO("run " << run << " row " << r << " column " << c);
        CHECK(out.data_as<float>()[r * kCols + c] == Approx(double(x[r * kCols + c]) * scale + double(r)));
      }
    }
  }
}

TEST_CASE("ge.exec.maxLoopIterations stops a loop whose condition never turns false", "[tf][while]") {
  tf::GraphDef g = MapGraph();
  for (tf::NodeDef& node : *g.mutable_node()) {
    if (node.name() == "one") *(*node.mutable_attr())["value"].mutable_tensor() = IntTensor({}, {0});  // i stays 0
  }
  const auto model = CompiledModel::Compile(ImportTensorFlowFile(Save(g, "endless")), {{"ge.exec.maxLoopIterations", "50"}});
  std::vector<Tensor> feeds;
  for (const TensorInfo& input : model->inputs()) {
    feeds.push_back(input.name == "x" ? Tensor(DataType::kFloat, Shape({kRows, kCols})) : Tensor(DataType::kFloat, Shape()));
  }
  try {
    model->Run(feeds);
    FAIL("the endless loop ran to an end");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK_THAT(std::string(e.what()), Catch::Contains("node 'loop#loop' (Loop)") &&
                                          Catch::Contains("ran 50 iterations, the bound ge.exec.maxLoopIterations"));
  }
}

TEST_CASE("the TensorFlow import refuses nested loops and conditionals by name", "[tf][while]") {
  std::string message;
  SECTION("a loop inside a loop") {
    tf::GraphDef g = MapGraph();
    tf::NodeDef& inner = Add(g, "inner/enter", "Enter", {"y"});
    (*inner.mutable_attr())["frame_name"].set_s("inner");
    CHECK(CodeOf(g, "nested", &message) == ErrorCode::kUnsupported);
    CHECK_THAT(message, Catch::Contains("while loop 'loop' holds another loop ('inner')"));
  }
  SECTION("a Switch and Merge outside a loop (tf.cond)") {
    tf::GraphDef g;
    Placeholder(g, "x", {2});
    Placeholder(g, "p", {});
    SetType(*g.mutable_node(1), "dtype", tf::DT_BOOL);
    Add(g, "switch", "Switch", {"x", "p"});
    Add(g, "neg", "Neg", {"switch:1"});
    Add(g, "merge", "Merge", {"switch", "neg"});
    CHECK(CodeOf(g, "cond", &message) == ErrorCode::kUnsupported);
    CHECK_THAT(message, Catch::Contains("node 'switch' (Switch) is outside the pattern of a while loop"));
  }
}

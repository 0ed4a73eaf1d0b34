#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ge/error.h"
#include "passes/pass.h"
#include "test_support.h"

namespace ge {
namespace {

// Appends its name to a shared log when run.
class RecordingPass : public Pass {
 public:
  RecordingPass(std::string name, std::vector<std::string>* log) : name_(std::move(name)), log_(log) {}
  std::string name() const override { return name_; }
  bool Run(Graph& graph, PassContext& ctx) override {
    log_->push_back(name_);
    return false;
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
};

class ThrowingPass : public Pass {
 public:
  std::string name() const override { return "thrower"; }
  bool Run(Graph& graph, PassContext& ctx) override {
    throw Error(ErrorCode::kUnsupported, "node 'n' (Foo): no");
  }
};

// Stages registered out of order: the manager must sort by stage and keep
// registration order inside a stage.
PassManager MakeManager(std::vector<std::string>* log) {
  PassManager manager;
  manager.Register(PassStage::kFinal, std::make_unique<RecordingPass>("final_1", log));
  manager.Register(PassStage::kImport, std::make_unique<RecordingPass>("import_1", log));
  manager.Register(PassStage::kFinal, std::make_unique<RecordingPass>("final_2", log));
  manager.Register(PassStage::kInferShape, std::make_unique<RecordingPass>("infer_1", log));
  manager.Register(PassStage::kImport, std::make_unique<RecordingPass>("import_2", log));
  return manager;
}

Graph SmallGraph() {
  Graph graph("small");
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{2, 3});
  Node* relu = graph.AddNode("Relu", "relu", {x});
  relu->output(0)->set_dtype(DataType::kFloat);
  relu->output(0)->set_shape(Shape{2, 3});
  graph.SetOutputs({relu->output(0)});
  return graph;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::vector<std::string> kRunOrder = {"import_1", "import_2", "infer_1", "final_1", "final_2"};

}  // namespace

TEST_CASE("PassManager runs passes by stage, then registration order, and times each") {
  std::vector<std::string> log;
  PassManager manager = MakeManager(&log);
  CHECK(manager.PassNames() == kRunOrder);

  Graph graph = SmallGraph();
  PassContext ctx;
  std::vector<PassTiming> timings = manager.Run(graph, ctx, {});
  CHECK(log == kRunOrder);
  REQUIRE(timings.size() == kRunOrder.size());
  for (size_t i = 0; i < timings.size(); ++i) {
    CHECK(timings[i].pass == kRunOrder[i]);
    CHECK(timings[i].milliseconds >= 0);
  }
}

TEST_CASE("PassManager skips disabled passes") {
  std::vector<std::string> log;
  PassManager manager = MakeManager(&log);
  Graph graph = SmallGraph();
  PassContext ctx;
  PassManagerOptions options;
  options.disabled = {"infer_1", "final_1"};
  std::vector<PassTiming> timings = manager.Run(graph, ctx, options);
  CHECK(log == std::vector<std::string>{"import_1", "import_2", "final_2"});
  REQUIRE(timings.size() == 3);
  CHECK(timings[2].pass == "final_2");
}

TEST_CASE("PassManager leaves out the device stage when asked, and only it") {
  std::vector<std::string> log;
  PassManager manager = MakeManager(&log);
  manager.Register(PassStage::kDevice, std::make_unique<RecordingPass>("device_1", &log));
  Graph graph = SmallGraph();
  PassContext ctx;
  manager.Run(graph, ctx, {});
  CHECK(log == std::vector<std::string>{"import_1", "import_2", "infer_1", "device_1", "final_1", "final_2"});
  log.clear();
  PassManagerOptions options;
  options.skip_device_stage = true;
  std::vector<PassTiming> timings = manager.Run(graph, ctx, options);
  CHECK(log == kRunOrder);
  CHECK(timings.size() == kRunOrder.size());
}

TEST_CASE("PassManager rejects disabling an unknown pass, listing the valid names") {
  std::vector<std::string> log;
  PassManager manager = MakeManager(&log);
  Graph graph = SmallGraph();
  PassContext ctx;
  PassManagerOptions options;
  options.disabled = {"no_such_pass"};
  try {
    manager.Run(graph, ctx, options);
    FAIL("expected ge::Error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    std::string message = error.what();
    CHECK_THAT(message, Catch::Contains("no_such_pass"));
    for (const std::string& name : kRunOrder) CHECK_THAT(message, Catch::Contains(name));
  }
  CHECK(log.empty());  // nothing ran
}

TEST_CASE("PassManager rejects a duplicate pass name") {
  std::vector<std::string> log;
  PassManager manager = MakeManager(&log);
  try {
    manager.Register(PassStage::kAfterInferShape, std::make_unique<RecordingPass>("infer_1", &log));
    FAIL("expected ge::Error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK_THAT(error.what(), Catch::Contains("infer_1"));
  }
  CHECK(manager.PassNames() == kRunOrder);
}

TEST_CASE("PassManager names the failing pass and keeps the error code") {
  PassManager manager;
  manager.Register(PassStage::kImport, std::make_unique<ThrowingPass>());
  Graph graph = SmallGraph();
  PassContext ctx;
  try {
    manager.Run(graph, ctx, {});
    FAIL("expected ge::Error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kUnsupported);
    CHECK_THAT(error.what(), Catch::Contains("pass 'thrower'") && Catch::Contains("node 'n' (Foo)"));
  }
}

TEST_CASE("PassManager dumps the graph after each pass into a new directory") {
  std::vector<std::string> log;
  PassManager manager = MakeManager(&log);
  Graph graph = SmallGraph();
  PassContext ctx;
  PassManagerOptions options;
  options.dump_dir = (test::TempDir("passes-dump") / "nested" / "dumps").string();
  options.disabled = {"import_2"};
  manager.Run(graph, ctx, options);

  std::vector<std::string> expected_files = {"01_import_1.txt", "02_infer_1.txt", "03_final_1.txt",
                                             "04_final_2.txt"};
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(options.dump_dir)) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  CHECK(files == expected_files);
  CHECK(ReadFile(std::filesystem::path(options.dump_dir) / "03_final_1.txt") == DumpGraph(graph));
}

TEST_CASE("PassManager reports an unwritable dump directory as an IO error naming it") {
  std::vector<std::string> log;
  PassManager manager = MakeManager(&log);
  Graph graph = SmallGraph();
  PassContext ctx;
  std::filesystem::path blocker = test::TempDir("passes-dump-blocked") / "a_file";
  std::ofstream(blocker) << "not a directory";
  PassManagerOptions options;
  options.dump_dir = (blocker / "dumps").string();
  try {
    manager.Run(graph, ctx, options);
    FAIL("expected ge::Error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kIoError);
    CHECK_THAT(error.what(), Catch::Contains(options.dump_dir));
  }
}

TEST_CASE("The built-in pipeline registers the documented passes in run order") {
  CHECK(PassManager::WithBuiltinPasses().PassNames() ==
        std::vector<std::string>{"identity_removal", "infer_shape", "constant_folding", "conv_bn_fold", "conv_bias_fold",
                                 "precision_mode", "impl_mode", "layer_norm_fusion", "gelu_fusion",
                                 "matmul_bias_fusion", "transpose_matmul_fusion", "dead_code_elimination"});
}

TEST_CASE("PassStageName names every stage") {
  CHECK(PassStageName(PassStage::kImport) == "import");
  CHECK(PassStageName(PassStage::kInferShape) == "infer_shape");
  CHECK(PassStageName(PassStage::kDevice) == "device");
  CHECK(PassStageName(PassStage::kFinal) == "final");
}

}  // namespace ge

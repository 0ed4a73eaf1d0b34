// precision_mode / precision_mode_v2: the Cast nodes the precision_mode pass
// inserts, the dtypes nodes compute in, and the accuracy of the lowered
// models in ../shared/models against their float32 runs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include "ge/builder.h"
#include "graph/op_schema.h"
#include "passes/builtin_passes.h"
#include "ge/compiled_model.h"
#include "ge/onnx_importer.h"
#include "passes/precision_mode.h"
#include "test_support.h"

namespace {

using ge::DataType;

// The dtype a node computes in: that of its first input.
DataType ComputeDtype(const ge::Node& node) { return node.input(0)->dtype(); }

const ge::Node& NodeNamed(const ge::CompiledModel& model, const std::string& name) {
  const ge::Node* node = model.graph().FindNode(name);
  REQUIRE(node != nullptr);
  return *node;
}

int CountOps(const ge::Graph& graph, const std::string& op_type) {
  int count = 0;
  for (const ge::Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

// No Cast reads another Cast: the pass never leaves a pair behind.
void CheckNoCastPairs(const ge::Graph& graph) {
  for (const ge::Node* node : graph.nodes()) {
    if (node->op_type() != "Cast") continue;
    const ge::Node* producer = node->input(0)->producer();
    INFO(node->name());
    CHECK((producer == nullptr || producer->op_type() != "Cast"));
  }
}

// x -> Relu -> MatMulV2 (constant weights) -> Exp -> SoftmaxV2 -> y, all float32.
std::unique_ptr<ge::Graph> SmallGraph() {
  ge::GraphBuilder b("small");
  ge::Value* x = b.Input("x", DataType::kFloat, {2, 8});
  std::vector<float> weights(8 * 4);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = 0.05f * static_cast<float>(i % 7) - 0.1f;
  ge::Value* w = b.Constant("w", ge::Tensor::FromVector(DataType::kFloat, {8, 4}, weights));
  ge::Value* relu = b.Relu(x, "relu");
  ge::Value* matmul = b.MatMul(relu, w, nullptr, false, false, "matmul");
  ge::Value* exp = b.Op("Exp", {matmul}, {}, 1, "exp")[0];
  b.Output(b.Softmax(exp, -1, "softmax"));
  return b.Build();
}

std::filesystem::path WriteFile(const std::string& test, const std::string& name, const std::string& text) {
  std::filesystem::path path = ge::test::TempDir(test) / name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("precision_mode: force_fp16 computes every node in float16 and keeps the graph edges", "[precision_mode]") {
  for (const char* option : {"ge.exec.precision_mode", "ge.exec.precision_mode_v2"}) {
    const std::string value = std::string(option) == "ge.exec.precision_mode" ? "force_fp16" : "fp16";
    auto model = ge::CompiledModel::Compile(SmallGraph(), {{option, value}});
    for (const char* name : {"relu", "matmul", "exp", "softmax"}) {
      INFO(name);
      CHECK(ComputeDtype(NodeNamed(*model, name)) == DataType::kFloat16);
    }
    // One cast after the input, one before the output; the weights were converted in place.
    CHECK(CountOps(model->graph(), "Cast") == 2);
    CheckNoCastPairs(model->graph());
    REQUIRE(model->outputs().size() == 1);
    CHECK(model->outputs()[0].dtype == DataType::kFloat);
    CHECK(model->outputs()[0].name == "softmax");
    CHECK(model->inputs()[0].dtype == DataType::kFloat);
    CHECK(NodeNamed(*model, "softmax").attrs().Has(ge::passes::kPrecisionReasonAttr));

    // The casts travel in the .gem file: the loaded model computes the same.
    std::filesystem::path gem = ge::test::TempDir("precision_mode_gem") / "small.gem";
    model->Save(gem.string());
    auto loaded = ge::CompiledModel::Load(gem.string());
    CHECK(CountOps(loaded->graph(), "Cast") == 2);
    std::vector<float> x(16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.3f * static_cast<float>(i) - 2.0f;
    ge::Tensor input = ge::Tensor::FromVector(DataType::kFloat, {2, 8}, x);
    std::vector<ge::Tensor> direct = model->Run({input});
    std::vector<ge::Tensor> reloaded = loaded->Run({input});
    CHECK(std::memcmp(direct[0].data(), reloaded[0].data(), direct[0].nbytes()) == 0);
  }
}

TEST_CASE("precision_mode: allow_fp32_to_fp16 and allow_fp32_to_bf16 lower the cube ops only", "[precision_mode]") {
  for (auto [value, low] : {std::pair{"allow_fp32_to_fp16", DataType::kFloat16},
                            std::pair{"allow_fp32_to_bf16", DataType::kBFloat16}}) {
    INFO(value);
    auto model = ge::CompiledModel::Compile(SmallGraph(), {{"ge.exec.precision_mode", value}});
    CHECK(ComputeDtype(NodeNamed(*model, "matmul")) == low);
    for (const char* name : {"relu", "exp", "softmax"}) {
      CHECK(ComputeDtype(NodeNamed(*model, name)) == DataType::kFloat);
    }
    CHECK(CountOps(model->graph(), "Cast") == 2);
    CheckNoCastPairs(model->graph());
  }
}

TEST_CASE("precision_mode: mixed modes keep the block list in float32, modify_mixlist edits it", "[precision_mode]") {
  for (auto [option, value, low] :
       {std::tuple{"ge.exec.precision_mode", "allow_mix_precision", DataType::kFloat16},
        std::tuple{"ge.exec.precision_mode", "allow_mix_precision_bf16", DataType::kBFloat16},
        std::tuple{"ge.exec.precision_mode_v2", "mixed_float16", DataType::kFloat16}}) {
    INFO(value);
    auto model = ge::CompiledModel::Compile(SmallGraph(), {{option, value}});
    CHECK(ComputeDtype(NodeNamed(*model, "relu")) == DataType::kFloat);  // gray after the float32 input
    CHECK(ComputeDtype(NodeNamed(*model, "matmul")) == low);           // trust list
    CHECK(ComputeDtype(NodeNamed(*model, "exp")) == DataType::kFloat);    // block list
    CHECK(ComputeDtype(NodeNamed(*model, "softmax")) == DataType::kFloat);
  }
  // Exp off the block list becomes gray and follows the float16 MatMulV2; Relu joins the trust list.
  std::filesystem::path mixlist = WriteFile("precision_mode_mixlist", "mix.json",
                                            R"({"black-list": {"to-remove": ["Exp"]},
                                                "white-list": {"to-add": ["Relu"]}})");
  auto model = ge::CompiledModel::Compile(
      SmallGraph(), {{"ge.exec.precision_mode_v2", "mixed_float16"}, {"ge.exec.modify_mixlist", mixlist.string()}});
  CHECK(ComputeDtype(NodeNamed(*model, "relu")) == DataType::kFloat16);
  CHECK(ComputeDtype(NodeNamed(*model, "exp")) == DataType::kFloat16);
  CHECK(ComputeDtype(NodeNamed(*model, "softmax")) == DataType::kFloat);
  CHECK(CountOps(model->graph(), "Cast") == 2);
  CheckNoCastPairs(model->graph());
}

TEST_CASE("precision_mode: keep_dtype nodes keep float32 under force_fp16", "[precision_mode]") {
  std::filesystem::path keep = WriteFile("precision_mode_keep", "keep.cfg", "# stay float32\nexp\nOpType::SoftmaxV2\n");
  auto model = ge::CompiledModel::Compile(
      SmallGraph(), {{"ge.exec.precision_mode", "force_fp16"}, {"ge.keepDtype", keep.string()}});
  CHECK(ComputeDtype(NodeNamed(*model, "relu")) == DataType::kFloat16);
  CHECK(ComputeDtype(NodeNamed(*model, "matmul")) == DataType::kFloat16);
  CHECK(ComputeDtype(NodeNamed(*model, "exp")) == DataType::kFloat);
  CHECK(ComputeDtype(NodeNamed(*model, "softmax")) == DataType::kFloat);
  CHECK_THAT(std::get<std::string>(*NodeNamed(*model, "exp").attrs().Find(ge::passes::kPrecisionReasonAttr)),
             Catch::Contains("keep_dtype"));
  CHECK(CountOps(model->graph(), "Cast") == 2);  // into float16 after x, back before exp
}

TEST_CASE("precision_mode: bad keep_dtype and modify_mixlist files are errors naming file and line",
          "[precision_mode]") {
  std::filesystem::path keep = WriteFile("precision_mode_bad_keep", "keep.cfg", "exp\nOpType::NoSuchOp\n");
  std::string message;
  try {
    ge::CompiledModel::Compile(SmallGraph(),
                               {{"ge.exec.precision_mode", "force_fp16"}, {"ge.keepDtype", keep.string()}});
  } catch (const ge::Error& error) {
    message = error.what();
  }
  CHECK_THAT(message, Catch::Contains("ge.keepDtype") && Catch::Contains(keep.string() + ":2"));

  std::filesystem::path mixlist = WriteFile("precision_mode_bad_mixlist", "mix.json",
                                            "{\"black-list\": {\n  \"to-add\": [\"NoSuchOp\"]}}");
  message.clear();
  try {
    ge::CompiledModel::Compile(SmallGraph(), {{"ge.exec.precision_mode", "allow_mix_precision"},
                                              {"ge.exec.modify_mixlist", mixlist.string()}});
  } catch (const ge::Error& error) {
    message = error.what();
  }
  CHECK_THAT(message, Catch::Contains("ge.exec.modify_mixlist") && Catch::Contains(mixlist.string() + ":2"));
}

namespace {

struct Shared {
  std::filesystem::path onnx;
  ge::Tensor input;
};

std::optional<Shared> LoadShared(const std::string& name) {
  auto shared = ge::test::SharedDir();
  if (!shared) return std::nullopt;
  std::filesystem::path dir = *shared / "models";
  return Shared{dir / (name + ".onnx"), ge::test::ReadNpy(dir / (name + ".input.npy"))};
}

double Cosine(const ge::Tensor& a, const ge::Tensor& b) {
  REQUIRE(a.dtype() == DataType::kFloat);
  REQUIRE(b.dtype() == DataType::kFloat);
  REQUIRE(a.shape() == b.shape());
  const float* x = static_cast<const float*>(a.data());
  const float* y = static_cast<const float*>(b.data());
  double dot = 0, xx = 0, yy = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    dot += double(x[i]) * y[i];
    xx += double(x[i]) * x[i];
    yy += double(y[i]) * y[i];
  }
  return dot / std::sqrt(xx * yy);
}

// A row of docs/precision.md's table: cosine, nodes lowered, and the op
// types that stayed float32 for want of a kernel.
void PrintRow(const std::string& model, const std::string& mode, double cosine, const ge::Graph& graph) {
  int lowered = 0, computing = 0;
  std::set<std::string> no_kernel;
  for (const ge::Node* node : graph.nodes()) {
    const ge::AttrValue* dtype = node->attrs().Find(ge::passes::kPrecisionDtypeAttr);
    if (dtype == nullptr) continue;
    ++computing;
    lowered += std::get<std::string>(*dtype) != "float32";
    const std::string& reason = std::get<std::string>(*node->attrs().Find(ge::passes::kPrecisionReasonAttr));
    if (reason.find("kernel") != std::string::npos) no_kernel.insert(node->op_type());
  }
  std::string missing;
  for (const std::string& op : no_kernel) missing += (missing.empty() ? "" : ", ") + op;
  std::printf("| %s | %s | %.6f | %d of %d | %s |\n", model.c_str(), mode.c_str(), cosine, lowered, computing,
              missing.c_str());
}

const char* const kSharedModels[] = {"tiny_cnn", "tiny_transformer", "squeezenet1_1"};

}  // namespace

TEST_CASE("precision_mode: lowered shared models stay within cosine 0.999 of float32", "[precision_mode]") {
  const std::vector<std::pair<std::string, std::string>> modes = {
      {"ge.exec.precision_mode", "force_fp16"},
      {"ge.exec.precision_mode", "allow_fp32_to_fp16"},
      {"ge.exec.precision_mode", "allow_mix_precision"},
      {"ge.exec.precision_mode_v2", "fp16"},
      {"ge.exec.precision_mode_v2", "mixed_float16"},
      {"ge.exec.precision_mode", "allow_fp32_to_bf16"},
      {"ge.exec.precision_mode_v2", "mixed_bfloat16"},
  };
  for (const char* name : kSharedModels) {
    auto shared = LoadShared(name);
    if (!shared) GE_SKIP("../shared/models is absent");
    auto reference = ge::CompiledModel::Compile(ge::ImportOnnxFile(shared->onnx.string()))->Run({shared->input});
    for (const auto& [option, value] : modes) {
      auto model = ge::CompiledModel::Compile(ge::ImportOnnxFile(shared->onnx.string()), {{option, value}});
      CheckNoCastPairs(model->graph());
      auto outputs = model->Run({shared->input});
      REQUIRE(outputs.size() == reference.size());
      double cosine = Cosine(outputs[0], reference[0]);
      if (std::getenv("GE_PRECISION_TABLE") != nullptr) PrintRow(name, value, cosine, model->graph());
      INFO(name << " " << value << ": cosine " << cosine);
      CHECK(cosine >= 0.999);
      // The block list stays float32 under the mixed modes.
      if (value.find("mix") != std::string::npos) {
        for (const ge::Node* node : model->graph().nodes()) {
          if (ge::passes::BuiltinBlockList().count(node->op_type()) == 0) continue;
          INFO(node->name());
          CHECK(ComputeDtype(*node) == DataType::kFloat);
        }
      }
    }
  }
}

TEST_CASE("precision_mode: must_keep_origin_dtype, origin and force_fp32 are bit-identical to the default",
          "[precision_mode]") {
  for (const char* name : kSharedModels) {
    auto shared = LoadShared(name);
    if (!shared) GE_SKIP("../shared/models is absent");
    auto reference = ge::CompiledModel::Compile(ge::ImportOnnxFile(shared->onnx.string()))->Run({shared->input});
    for (auto [option, value] : {std::pair{"ge.exec.precision_mode", "must_keep_origin_dtype"},
                                 std::pair{"ge.exec.precision_mode_v2", "origin"},
                                 std::pair{"ge.exec.precision_mode", "force_fp32"}}) {
      INFO(name << " " << value);
      auto model = ge::CompiledModel::Compile(ge::ImportOnnxFile(shared->onnx.string()), {{option, value}});
      auto outputs = model->Run({shared->input});
      REQUIRE(outputs[0].nbytes() == reference[0].nbytes());
      CHECK(std::memcmp(outputs[0].data(), reference[0].data(), reference[0].nbytes()) == 0);
    }
  }
}

TEST_CASE("precision_mode: force_fp32 computes float16 nodes in float32, the edges stay float16", "[precision_mode]") {
  ge::GraphBuilder b("half");
  ge::Value* x = b.Input("x", DataType::kFloat16, {2, 8});
  b.Output(b.Softmax(b.Relu(x, "relu"), -1, "softmax"));
  auto model = ge::CompiledModel::Compile(b.Build(), {{"ge.exec.precision_mode", "force_fp32"}});
  CHECK(ComputeDtype(NodeNamed(*model, "relu")) == DataType::kFloat);
  CHECK(ComputeDtype(NodeNamed(*model, "softmax")) == DataType::kFloat);
  CHECK(model->outputs()[0].dtype == DataType::kFloat16);
  CHECK(CountOps(model->graph(), "Cast") == 2);
}

TEST_CASE("precision_mode: a node whose kernel lacks float16 stays float32 and says why", "[precision_mode]") {
  // Every CPU kernel of SmallGraph has float16; the pass alone, with a device
  // that lacks a float16 Exp.
  std::unique_ptr<ge::Graph> graph = SmallGraph();
  ge::PassContext ctx;
  ge::passes::MakeInferShapePass()->Run(*graph, ctx);
  ge::passes::PrecisionPolicy policy =
      ge::passes::MakePrecisionPolicy("force_fp16", "", ge::passes::KeepDtypeList{}, ge::passes::MixlistEdits{});
  ctx.precision = &policy;
  ctx.has_kernel = [](const std::string& op_type, DataType dtype) {
    return op_type != "Exp" || dtype != DataType::kFloat16;
  };
  REQUIRE(ge::passes::MakePrecisionModePass()->Run(*graph, ctx));
  CHECK(ComputeDtype(*graph->FindNode("matmul")) == DataType::kFloat16);
  const ge::Node& exp = *graph->FindNode("exp");
  CHECK(ComputeDtype(exp) == DataType::kFloat);
  CHECK(exp.output(0)->dtype() == DataType::kFloat);
  CHECK_THAT(std::get<std::string>(*exp.attrs().Find(ge::passes::kPrecisionReasonAttr)),
             Catch::Contains("no float16 kernel"));
  CHECK(ComputeDtype(*graph->FindNode("softmax")) == DataType::kFloat16);
  CheckNoCastPairs(*graph);
}

TEST_CASE("precision_mode: the built-in mixed-precision lists name registered op types", "[precision_mode]") {
  for (const auto* list : {&ge::passes::BuiltinTrustList(), &ge::passes::BuiltinBlockList()}) {
    for (const std::string& op_type : *list) {
      INFO(op_type);
      CHECK(ge::OpRegistry::Global().Find(op_type) != nullptr);
    }
  }
}

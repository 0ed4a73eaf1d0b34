// Bad models and bad inputs end to end: each is refused with a ge::Error of the
// documented code whose message names the culprit, never a crash.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include "file_bytes.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/onnx_importer.h"
#include "test_support.h"

namespace ge::test {
namespace {

using Catch::Matchers::Contains;

const std::filesystem::path kDemoModel = ge::test::SourceDir() / "models" / "demo_cnn.onnx";

// Runs `action`, requires a ge::Error with `code`, returns its message.
template <typename Action>
std::string ErrorOf(ErrorCode code, Action&& action) {
  try {
    action();
  } catch (const Error& e) {
    INFO("message: " << e.what());
    CHECK(ErrorCodeName(e.code()) == std::string(ErrorCodeName(code)));
    return e.what();
  }
  FAIL("no ge::Error was thrown");
  return "";
}

// A one-node ONNX model y = op(x...) over float tensors of shape [4], opset 13.
onnx::ModelProto OneNodeModel(const std::string& domain, const std::string& op_type, int num_inputs) {
  onnx::ModelProto model;
  model.set_ir_version(7);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  if (!domain.empty()) {
    auto* custom = model.add_opset_import();
    custom->set_domain(domain);
    custom->set_version(1);
  }
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("one_node");
  auto declare = [](onnx::ValueInfoProto* info, const std::string& name) {
    info->set_name(name);
    auto* type = info->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    type->mutable_shape()->add_dim()->set_dim_value(4);
  };
  onnx::NodeProto* node = graph->add_node();
  node->set_name("mystery");
  node->set_op_type(op_type);
  node->set_domain(domain);
  for (int i = 0; i < num_inputs; ++i) {
    const std::string name = "x" + std::to_string(i);
    declare(graph->add_input(), name);
    node->add_input(name);
  }
  node->add_output("y");
  declare(graph->add_output(), "y");
  return model;
}

void WriteModel(const std::filesystem::path& path, const onnx::ModelProto& model) {
  std::string bytes;
  REQUIRE(model.SerializeToString(&bytes));
  WriteFileBytes(path, bytes);
}

std::shared_ptr<const CompiledModel> CompileDemo() { return CompiledModel::Compile(ImportOnnxFile(kDemoModel.string())); }

Tensor DemoInput(DataType dtype = DataType::kFloat, Shape shape = Shape{1, 3, 32, 32}) { return Tensor(dtype, shape); }

}  // namespace

TEST_CASE("truncated ONNX file is an invalid model naming the file") {
  const auto dir = TempDir("e2e_truncated_onnx");
  const std::string bytes = ReadFileBytes(kDemoModel);
  const auto path = dir / "truncated.onnx";
  WriteFileBytes(path, bytes.substr(0, bytes.size() / 2));
  const std::string message = ErrorOf(ErrorCode::kInvalidModel, [&] { ImportOnnxFile(path.string()); });
  CHECK_THAT(message, Contains("truncated.onnx"));
}

TEST_CASE("unknown op is unsupported, naming the op type and the node") {
  const auto dir = TempDir("e2e_unknown_op");
  const auto path = dir / "unknown_op.onnx";
  // A custom domain passes the ONNX checker, so the refusal is ge's own.
  WriteModel(path, OneNodeModel("com.example", "Frobnicate", 1));
  const std::string message = ErrorOf(ErrorCode::kUnsupported, [&] { ImportOnnxFile(path.string()); });
  CHECK_THAT(message, Contains("Frobnicate"));
  CHECK_THAT(message, Contains("mystery"));
}

TEST_CASE("external data outside the model's folder is refused") {
  const auto dir = TempDir("e2e_external_escape");
  std::filesystem::create_directories(dir / "model");
  // The escaping file exists and is valid, so only the location can be the reason.
  WriteFileBytes(dir / "outside.bin", std::string(16, '\0'));
  onnx::ModelProto model = OneNodeModel("", "Add", 1);
  onnx::TensorProto* weight = model.mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(onnx::TensorProto::FLOAT);
  weight->add_dims(4);
  weight->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = weight->add_external_data();
  location->set_key("location");
  location->set_value("../outside.bin");
  model.mutable_graph()->mutable_node(0)->add_input("w");
  const auto path = dir / "model" / "escape.onnx";
  WriteModel(path, model);
  const std::string message = ErrorOf(ErrorCode::kInvalidModel, [&] { ImportOnnxFile(path.string()); });
  CHECK_THAT(message, Contains("outside.bin"));
}

TEST_CASE("input of the wrong shape is an invalid argument naming the input") {
  const auto model = CompileDemo();
  const std::string message =
      ErrorOf(ErrorCode::kInvalidArgument, [&] { model->Run({DemoInput(DataType::kFloat, Shape{1, 3, 16, 16})}); });
  CHECK_THAT(message, Contains("image"));
  CHECK_THAT(message, Contains("[1,3,16,16]"));
}

TEST_CASE("wrong number of inputs is an invalid argument") {
  const auto model = CompileDemo();
  ErrorOf(ErrorCode::kInvalidArgument, [&] { model->Run({}); });
  ErrorOf(ErrorCode::kInvalidArgument, [&] { model->Run({DemoInput(), DemoInput()}); });
}

TEST_CASE("input of the wrong dtype is an invalid argument naming both dtypes") {
  const auto model = CompileDemo();
  const std::string message =
      ErrorOf(ErrorCode::kInvalidArgument, [&] { model->Run({DemoInput(DataType::kInt32)}); });
  CHECK_THAT(message, Contains("image"));
  CHECK_THAT(message, Contains("int32"));
  CHECK_THAT(message, Contains("float32"));
}

TEST_CASE("corrupted or truncated .gem is an invalid model naming the file") {
  const auto dir = TempDir("e2e_corrupted_gem");
  const auto good = dir / "good.gem";
  CompileDemo()->Save(good.string());
  const std::string bytes = ReadFileBytes(good);

  const auto truncated = dir / "truncated.gem";
  WriteFileBytes(truncated, bytes.substr(0, bytes.size() / 2));
  CHECK_THAT(ErrorOf(ErrorCode::kInvalidModel, [&] { CompiledModel::Load(truncated.string()); }),
             Contains("truncated.gem"));

  // Flipping the header's bytes breaks the magic and the root offset.
  std::string flipped = bytes;
  for (size_t i = 0; i < 16 && i < flipped.size(); ++i) flipped[i] = static_cast<char>(~flipped[i]);
  const auto corrupted = dir / "corrupted.gem";
  WriteFileBytes(corrupted, flipped);
  CHECK_THAT(ErrorOf(ErrorCode::kInvalidModel, [&] { CompiledModel::Load(corrupted.string()); }),
             Contains("corrupted.gem"));

  // One flipped bit in the middle leaves the structure intact: only the checksum can tell.
  std::string bit_flipped = bytes;
  bit_flipped[bit_flipped.size() / 2] ^= 0x10;
  const auto damaged = dir / "damaged.gem";
  WriteFileBytes(damaged, bit_flipped);
  CHECK_THAT(ErrorOf(ErrorCode::kInvalidModel, [&] { CompiledModel::Load(damaged.string()); }),
             Contains("damaged.gem"));
}

}  // namespace ge::test

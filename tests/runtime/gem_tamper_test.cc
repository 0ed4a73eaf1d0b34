// A .gem file is untrusted input: edits that keep the checksum right (anyone
// can recompute it) must still be refused at load time, with one error that
// names the file, the node or value and what does not add up
// (runtime/model_file/gem_validation.h). Each case edits one thing in a saved model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gem_tamper.h"
#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "test_models.h"
#include "test_support.h"

using ge::CompiledModel;
using ge::DataType;
using ge::ErrorCode;
using ge::test::AttrData;
using ge::test::NodeNamed;
using ge::test::StepOf;
using ge::test::StorageOf;
using ge::test::ValueNamed;
namespace gem = ge::gem;

namespace {

constexpr const char* kOrigin = "tampered.gem";
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// x [1, 2, 8, 8] -> MaxPool (2x2, stride 2) "pool" -> Relu "relu" -> output.
std::unique_ptr<ge::Graph> PoolGraph() {
  ge::GraphBuilder b("pool");
  ge::Value* x = b.Input("x", DataType::kFloat, {1, 2, 8, 8});
  b.Outputs({b.Relu(b.MaxPool(x, {}, "pool"), "relu")});
  return b.Build();
}

// x [2, 3] float32 -> Cast "cast" to int32 -> output: a value whose dtype the
// file stores (float32, the default, is left out of the tables).
const std::string& SavedCast() {
  static const std::string bytes = [] {
    ge::GraphBuilder b("cast");
    b.Outputs({b.Cast(b.Input("x", DataType::kFloat, {2, 3}), DataType::kInt32, "cast")});
    return ge::test::SavedGem(*CompiledModel::Compile(b.Build()));
  }();
  return bytes;
}

// Two independent Softmax chains, planned on two streams with events.
std::shared_ptr<const CompiledModel> TwoStreamModel() {
  ge::GraphBuilder b("two_streams");
  ge::Value* a = b.Input("a", DataType::kFloat, {4, 4});
  ge::Value* c = b.Input("c", DataType::kFloat, {4, 4});
  b.Outputs({b.Softmax(b.Softmax(a, -1, "a1"), -1, "a2"), b.Softmax(b.Softmax(c, -1, "c1"), -1, "c2")});
  auto model = CompiledModel::Compile(b.Build(), {{"ge.enableSingleStream", "false"}});
  REQUIRE(model->impl().stream_count == 2);
  return model;
}

const std::string& SavedPool() {
  static const std::string bytes = ge::test::SavedGem(*CompiledModel::Compile(PoolGraph()));
  return bytes;
}

const std::string& SavedConv() {
  static const std::string bytes = ge::test::SavedGem(*CompiledModel::Compile(ge::test::ConvReluModel().Build()));
  return bytes;
}

std::shared_ptr<const CompiledModel> LoadBytes(const std::string& bytes) {
  return CompiledModel::LoadFromMemory(bytes.data(), bytes.size(), kOrigin);
}

// The message of the load's error; the test fails unless it is `code` and starts with the file's name.
std::string Refusal(const std::string& bytes, ErrorCode code = ErrorCode::kInvalidModel) {
  auto [got, message] = ge::test::ErrorOf([&] { LoadBytes(bytes); });
  INFO(message);
  CHECK(got == code);
  CHECK_THAT(message, Catch::StartsWith(std::string(kOrigin) + ": "));
  return message;
}

struct Edit {
  std::string what;
  const std::string& saved;
  std::function<void(gem::Model&)> edit;
  std::vector<std::string> message_names;  // what the error must name
};

void CheckRefused(const std::vector<Edit>& edits) {
  for (const Edit& edit : edits) {
    INFO(edit.what);
    const std::string message = Refusal(ge::test::Tampered(edit.saved, edit.edit));
    for (const std::string& name : edit.message_names) CHECK_THAT(message, Catch::Contains(name));
  }
}

}  // namespace

TEST_CASE("gem tamper: an untouched file sealed again still loads", "[gem][tamper]") {
  CHECK(ge::test::ErrorCodeOf([] { LoadBytes(ge::test::Tampered(SavedPool(), [](gem::Model&) {})); }) ==
        ErrorCode::kOk);
  CHECK(ge::test::ErrorCodeOf([] { LoadBytes(ge::test::Tampered(SavedConv(), [](gem::Model&) {})); }) ==
        ErrorCode::kOk);
}

// The three cases the issue found: a heap overflow, a run that never ended, std::bad_alloc.
TEST_CASE("gem tamper: shapes must follow from the inputs and attributes", "[gem][tamper]") {
  CheckRefused({
      {"an input dim of 65537 the transpose reading it was not built for", SavedConv(),
       [](gem::Model& m) { ValueNamed(m, "x").mutable_dims()->Mutate(0, 65537); },
       {"x/nhwc", "stored as float32 [1,5,5,2]", "[65537,5,5,2]"}},
      {"a pooling window of INT32_MAX", SavedPool(),
       [](gem::Model& m) { AttrData<gem::IntsAttr>(NodeNamed(m, "pool"), "ksize").mutable_values()->Mutate(2, kInt32Max); },
       {"'pool' (MaxPoolV3)", "2147483647"}},
      {"a pooling stride of INT32_MAX", SavedPool(),
       [](gem::Model& m) {
         AttrData<gem::IntsAttr>(NodeNamed(m, "pool"), "strides").mutable_values()->Mutate(2, kInt32Max);
       },
       {"'pool' (MaxPoolV3)", "stored as float32 [1,2,4,4]", "[1,2,1,4]"}},
      {"an input dim of 2^31", SavedPool(), [](gem::Model& m) { ValueNamed(m, "x").mutable_dims()->Mutate(0, 1LL << 31); },
       {"'pool'", "[2147483648,2,4,4]"}},
      {"an output dtype inference does not give", SavedCast(),
       [](gem::Model& m) { REQUIRE(ValueNamed(m, "cast").mutate_dtype(static_cast<int32_t>(DataType::kInt64))); },
       {"'cast'", "stored as int64 [2,3]", "int32 [2,3]"}},
      {"a constant whose value shape is not its tensor's", SavedConv(),
       [](gem::Model& m) { ValueNamed(m, "bias").mutable_dims()->Mutate(0, 1); }, {"'bias'", "[1]", "[3]"}},
  });
}

TEST_CASE("gem tamper: shapes that add up but need more than ge.maxTensorBytes", "[gem][tamper]") {
  // The dim of 2^31 on every value: consistent, but 1 TiB per tensor.
  CheckRefused({{"dims of 2^31 everywhere", SavedPool(),
                 [](gem::Model& m) {
                   for (const char* value : {"x", "pool", "relu"}) ValueNamed(m, value).mutable_dims()->Mutate(0, 1LL << 31);
                 },
                 {"value 'x'", "[2147483648,2,8,8]", "ge.maxTensorBytes"}}});
}

TEST_CASE("gem tamper: attributes, constants and ids", "[gem][tamper]") {
  const std::string two_inputs = ge::test::SavedGem(*TwoStreamModel());
  CheckRefused({
      {"a graph input index of 2^31", two_inputs,
       [](gem::Model& m) { REQUIRE(AttrData<gem::IntAttr>(NodeNamed(m, "c"), "index").mutate_value(1LL << 31)); },
       {"'c'", "2147483648"}},
      {"an unknown dtype code", SavedCast(), [](gem::Model& m) { REQUIRE(ValueNamed(m, "cast").mutate_dtype(12345)); },
       {"value 'cast'", "12345"}},
      {"constant dims that disagree with its bytes", SavedConv(),
       [](gem::Model& m) { AttrData<gem::TensorData>(NodeNamed(m, "bias"), "value").mutable_dims()->Mutate(0, 4); },
       {"node 'bias'", "outside the weights"}},
      {"a constant past the end of the weights", SavedConv(),
       [](gem::Model& m) {
         REQUIRE(AttrData<gem::TensorData>(NodeNamed(m, "filter"), "value").mutate_offset(m.weights()->size()));
       },
       {"node 'filter'", "outside the weights"}},
      {"an input read before it is produced", SavedPool(),
       [](gem::Model& m) { NodeNamed(m, "pool").mutable_inputs()->Mutate(0, 2); },
       {"'pool'", "#2 before it is produced"}},
      {"an input id below -1", SavedPool(), [](gem::Model& m) { NodeNamed(m, "pool").mutable_inputs()->Mutate(0, -7); },
       {"'pool'", "#-7, which does not exist"}},
      {"an input id past the values", SavedPool(),
       [](gem::Model& m) { NodeNamed(m, "pool").mutable_inputs()->Mutate(0, 1000); },
       {"'pool'", "#1000, which does not exist"}},
      {"a graph output that is no value", SavedPool(),
       [](gem::Model& m) { m.mutable_graph()->mutable_outputs()->Mutate(0, 1000); }, {"graph output"}},
      {"a step of a node that does not exist", SavedPool(), [](gem::Model& m) { REQUIRE(StepOf(m, "relu").mutate_node(1000)); },
       {"1000"}},
      {"packed weights past the end of the weights", SavedConv(),
       [](gem::Model& m) {
         REQUIRE(m.mutable_packed_inputs()->GetMutableObject(0)->mutate_offset(m.weights()->size()));
       },
       {"packed input", "outside the weights"}},
  });
}

// Whether the conv step of SavedConv() stores a workspace: oneDNN's
// scratchpad, which some instruction sets' convolutions do not need (a field
// at its default value is not stored, so it cannot be edited in place).
bool ConvStoresWorkspace() {
  std::string bytes = SavedConv();
  return StepOf(*gem::GetMutableModel(bytes.data()), "conv").workspace_bytes() > 0;
}

// The storage of an input or output of the node that is in the arena (the
// layout pass may have put transposes around it, so the names are not known
// in advance).
gem::ValueStorage& ArenaOperand(gem::Model& model, const std::string& node_name) {
  const gem::NodeDef& node = NodeNamed(model, node_name);
  std::vector<uint32_t> ids(node.outputs()->begin(), node.outputs()->end());
  for (int32_t input : *node.inputs()) {
    if (input >= 0) ids.push_back(static_cast<uint32_t>(input));
  }
  auto& storage = *model.mutable_plan()->mutable_storage();
  auto in_arena = std::find_if(ids.begin(), ids.end(),
                               [&](uint32_t id) { return storage.Get(id)->kind() == gem::StorageKind::Arena; });
  INFO("no operand of '" << node_name << "' is in the arena");
  REQUIRE(in_arena != ids.end());
  return *storage.GetMutableObject(*in_arena);
}

TEST_CASE("gem tamper: the memory plan", "[gem][tamper]") {
  std::vector<Edit> edits = {
      {"a value placed past the arena's end", SavedPool(),
       [](gem::Model& m) { StorageOf(m, "pool").mutate_offset(m.plan()->memory()->arena_bytes()); },
       {"value 'pool'", "does not fit its storage"}},
      {"a value placed between two of its elements", SavedPool(),
       [](gem::Model& m) { StorageOf(m, "pool").mutate_offset(StorageOf(m, "pool").offset() + 2); },
       {"value 'pool' (float32)", "is not aligned to its elements"}},
      {"a graph input stored in the arena", SavedPool(),
       [](gem::Model& m) { StorageOf(m, "x").mutate_kind(gem::StorageKind::Arena); }, {"'x'"}},
      {"an arena larger than everything placed in it", SavedPool(),
       [](gem::Model& m) { m.mutable_plan()->mutable_memory()->mutate_arena_bytes(uint64_t{1} << 40); },
       {"arena of 1099511627776 bytes", "128 bytes"}},
  };
  if (ConvStoresWorkspace()) {
    edits.push_back({"a workspace above ge.maxTensorBytes", SavedConv(),
                     [](gem::Model& m) {
                       m.mutable_plan()->mutable_memory()->mutate_arena_bytes(uint64_t{1} << 40);
                       REQUIRE(StepOf(m, "conv").mutate_workspace_bytes(uint64_t{1} << 39));
                     },
                     {"'conv'", "ge.maxTensorBytes"}});
    // oneDNN keeps pointers in its scratchpad: written over by the output, they crashed a run.
    edits.push_back({"a workspace over the step's own output", SavedConv(),
                     [](gem::Model& m) {
                       gem::ValueStorage& operand = ArenaOperand(m, "conv");
                       // A workspace at offset 0 is not stored, so the operand moves onto it instead.
                       if (!StepOf(m, "conv").mutate_workspace_offset(operand.offset())) operand.mutate_offset(0);
                     },
                     {"the workspace of node 'conv'", "share arena bytes while both are in use"}});
  } else {
    WARN("the convolution needs no workspace on this instruction set: its tamper case is not run");
  }
  CheckRefused(edits);
}

TEST_CASE("gem tamper: values in use at once placed on the same bytes", "[gem][tamper]") {
  ge::GraphBuilder b("two_live");
  ge::Value* x = b.Input("x", DataType::kFloat, {4, 4});
  b.Outputs({b.Add(b.Relu(x, "r1"), b.Sigmoid(x, "r2"), "sum")});
  const std::string one_stream = ge::test::SavedGem(*CompiledModel::Compile(b.Build()));
  const std::string two_streams = ge::test::SavedGem(*TwoStreamModel());
  CheckRefused({
      {"both operands of one step", one_stream,
       [](gem::Model& m) { StorageOf(m, "r2").mutate_offset(StorageOf(m, "r1").offset()); },
       {"value 'r1'", "value 'r2'", "share arena bytes"}},
      {"two streams that may run at once", two_streams,
       [](gem::Model& m) { StorageOf(m, "c1").mutate_offset(StorageOf(m, "a1").offset()); },
       {"value 'a1'", "value 'c1'", "share arena bytes"}},
  });
}

TEST_CASE("gem tamper: streams and events", "[gem][tamper]") {
  const std::string saved = ge::test::SavedGem(*TwoStreamModel());
  auto on_second_stream = [](gem::Model& m) -> gem::StepDef& {
    auto& steps = *m.mutable_plan()->mutable_steps();
    flatbuffers::uoffset_t s = 0;
    while (s < steps.size() && steps.Get(s)->stream() != 1) ++s;
    REQUIRE(s < steps.size());
    return *steps.GetMutableObject(s);
  };
  CheckRefused({
      {"a step on a stream that does not exist", saved, [&](gem::Model& m) { REQUIRE(on_second_stream(m).mutate_stream(7)); },
       {"invalid stream plan", "stream 7 of 2"}},
      {"a stream count of 2^31", saved, [](gem::Model& m) { REQUIRE(m.mutable_plan()->mutate_stream_count(1u << 31)); },
       {"invalid stream plan", "2147483647 streams"}},
  });
}

// What validation does not promise: an edit that keeps the file consistent
// loads, and the model computes something else. Only a trusted location or a
// signature checked out of band rules that out (docs/model-file.md).
TEST_CASE("gem tamper: a consistent edit loads and computes other numbers", "[gem][tamper]") {
  auto original = CompiledModel::Compile(PoolGraph());
  const std::string tampered = ge::test::Tampered(
      SavedPool(), [](gem::Model& m) { ge::test::Overwrite(*NodeNamed(m, "relu").mutable_op_type(), "Tanh"); });
  auto loaded = LoadBytes(tampered);
  const std::vector<ge::Tensor> inputs = {ge::test::RandomTensor({1, 2, 8, 8}, 5)};
  CHECK_FALSE(ge::test::BitIdentical(loaded->Run(inputs)[0], original->Run(inputs)[0]));
}

// Every int attribute of the test models set to each extreme: the load either
// refuses the file with a ge::Error, or the model runs (or fails with one).
// Under the asan preset this also shows that no such edit reads or writes out
// of bounds.
TEST_CASE("gem tamper: extreme int attributes are refused or run safely", "[gem][tamper]") {
  const std::vector<int64_t> extremes = {0, -1, kInt32Max, int64_t{1} << 31, std::numeric_limits<int64_t>::max()};
  for (const std::string* saved : {&SavedPool(), &SavedConv()}) {
    const gem::Model& model = *gem::GetModel(saved->data());
    for (const gem::NodeDef* node : *model.graph()->nodes()) {
      if (node->attrs() == nullptr) continue;
      for (const gem::Attr* attr : *node->attrs()) {
        const bool ints = attr->data_type() == gem::AttrData::IntsAttr;
        if (!ints && attr->data_type() != gem::AttrData::IntAttr) continue;
        const size_t count = ints ? attr->data_as_IntsAttr()->values()->size() : 1;
        for (size_t index = 0; index < count; ++index) {
          for (int64_t extreme : extremes) {
            const std::string name = node->name()->str(), attr_name = attr->name()->str();
            INFO(name << "." << attr_name << "[" << index << "] = " << extreme);
            const std::string bytes = ge::test::Tampered(*saved, [&](gem::Model& m) {
              gem::NodeDef& edited = NodeNamed(m, name);
              if (ints) {
                AttrData<gem::IntsAttr>(edited, attr_name).mutable_values()->Mutate(index, extreme);
              } else {
                AttrData<gem::IntAttr>(edited, attr_name).mutate_value(extreme);
              }
            });
            std::shared_ptr<const CompiledModel> loaded;
            if (ge::test::ErrorCodeOf([&] { loaded = LoadBytes(bytes); }) != ErrorCode::kOk) continue;
            std::vector<ge::Tensor> inputs;
            for (const ge::TensorInfo& input : loaded->inputs()) inputs.push_back(ge::test::RandomTensor(input.shape, 3));
            ge::test::ErrorCodeOf([&] { loaded->Run(inputs); });  // any ge::Error is fine; anything else fails
          }
        }
      }
    }
  }
}

// Named dims (graph/dim_names.h; the ONNX importer's dim_param, tested in
// tests/onnx): CompiledModel::inputs() reports them, a .gem file keeps them,
// and a run refuses inputs that give dims of one name different sizes,
// naming both inputs and the dim.
#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "graph/dim_names.h"
#include "test_support.h"

using namespace ge;
using namespace ge::test;

namespace {

// a [batch, seq] + b [batch, seq]; Relu of a square c [n, n]; d [2, seq] unnamed in its first dim.
std::shared_ptr<const CompiledModel> NamedDimsModel() {
  constexpr int64_t kAny = Shape::kUnknownDim;
  GraphBuilder b("named_dims");
  auto input = [&](const std::string& name, Shape shape, std::vector<std::string> names) {
    Value* value = b.Input(name, DataType::kFloat, std::move(shape));
    value->producer()->attrs().Set(kDimNamesAttr, std::move(names));
    return value;
  };
  Value* a = input("a", {kAny, kAny}, {"batch", "seq"});
  Value* x = input("b", {kAny, kAny}, {"batch", "seq"});
  Value* c = input("c", {kAny, kAny}, {"n", "n"});
  Value* d = input("d", {2, kAny}, {"", "seq"});
  b.Outputs({b.Add(a, x, "sum"), b.Relu(c, "relu"), b.Op("Neg", {d}, {}, 1, "neg")[0]});
  return CompiledModel::Compile(b.Build());
}

std::vector<Tensor> Inputs(Shape a, Shape b, Shape c, Shape d) {
  return {Tensor(DataType::kFloat, std::move(a)), Tensor(DataType::kFloat, std::move(b)),
          Tensor(DataType::kFloat, std::move(c)), Tensor(DataType::kFloat, std::move(d))};
}

void CheckModel(const CompiledModel& model) {
  CHECK(model.inputs()[0].dim_names == std::vector<std::string>{"batch", "seq"});
  CHECK(model.inputs()[1].dim_names == std::vector<std::string>{"batch", "seq"});
  CHECK(model.inputs()[2].dim_names == std::vector<std::string>{"n", "n"});
  CHECK(model.inputs()[3].dim_names == std::vector<std::string>{"", "seq"});
  CHECK(model.Run(Inputs({2, 3}, {2, 3}, {4, 4}, {2, 3}))[0].shape() == Shape{2, 3});
  CHECK(model.Run(Inputs({5, 1}, {5, 1}, {0, 0}, {2, 1}))[1].shape() == Shape{0, 0});

  const auto refused = [&](std::vector<Tensor> inputs) {
    try {
      model.Run(inputs);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kInvalidArgument);
      return std::string(e.what());
    }
    FAIL("the run was not refused");
    return std::string();
  };
  CHECK_THAT(refused(Inputs({2, 3}, {2, 5}, {4, 4}, {2, 3})),
             Catch::Contains("input 'b' (#1) has 5 along dim 1 ('seq'), but input 'a' (#0) has 3 along dim 1"));
  CHECK_THAT(refused(Inputs({2, 3}, {3, 3}, {4, 4}, {2, 3})), Catch::Contains("'batch'") && Catch::Contains("'a'"));
  CHECK_THAT(refused(Inputs({2, 3}, {2, 3}, {4, 5}, {2, 3})),
             Catch::Contains("input 'c' (#2) has 5 along dim 1 ('n'), but input 'c' (#2) has 4 along dim 0"));
  CHECK_THAT(refused(Inputs({2, 3}, {2, 3}, {4, 4}, {2, 7})), Catch::Contains("input 'd' (#3) has 7 along dim 1"));
}

}  // namespace

TEST_CASE("named dims: reported, kept by .gem files, and one size per name in a run", "[onnx][named_dims]") {
  auto model = NamedDimsModel();
  CheckModel(*model);
  const auto path = TempDir("named_dims") / "named.gem";
  model->Save(path.string());
  CheckModel(*CompiledModel::Load(path.string()));
}

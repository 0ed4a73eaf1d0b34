// The IR core: tensors, shapes, graph editing and ordering, .npy files.
#include <catch2/catch.hpp>
#include <fstream>

#include "ge/error.h"
#include "ge/graph.h"
#include "graph/npy.h"
#include "test_support.h"

using namespace ge;

TEST_CASE("dtype numbering follows aclDataType", "[core]") {
  CHECK(static_cast<int>(DataType::kFloat) == 0);
  CHECK(static_cast<int>(DataType::kFloat16) == 1);
  CHECK(static_cast<int>(DataType::kInt64) == 9);
  CHECK(static_cast<int>(DataType::kBool) == 12);
  CHECK(static_cast<int>(DataType::kBFloat16) == 27);
  CHECK(static_cast<int>(Format::kFractalNZ) == 29);
  CHECK(DataTypeSize(DataType::kDouble) == 8);
  CHECK(ParseDataType("float16") == DataType::kFloat16);
  CHECK(ParseDataType("bf16") == DataType::kBFloat16);
  CHECK_FALSE(ParseDataType("float8").has_value());
}

TEST_CASE("shapes with unknown dims", "[core]") {
  CHECK(Shape{1, 3, 224, 224}.NumElements() == 150528);
  CHECK(Shape{}.NumElements() == 1);
  CHECK(Shape{2, Shape::kUnknownDim}.NumElements() == -1);
  CHECK_FALSE(Shape::UnknownRank().IsStatic());
  CHECK(Shape{2, -1}.ToString() == "[2,?]");
  CHECK(Shape::UnknownRank().ToString() == "[*]");
}

TEST_CASE("tensors are aligned, zeroed, shallow-copied", "[core]") {
  Tensor t(DataType::kFloat, Shape{3, 5});
  CHECK(reinterpret_cast<uintptr_t>(t.data()) % Tensor::kAlignment == 0);
  CHECK(t.nbytes() == 60);
  CHECK(t.data_as<float>()[14] == 0.0f);
  Tensor alias = t;
  alias.data_as<float>()[0] = 7;
  CHECK(t.data_as<float>()[0] == 7);
  Tensor deep = t.Clone();
  deep.data_as<float>()[0] = 1;
  CHECK(t.data_as<float>()[0] == 7);
  CHECK_THROWS_AS(Tensor(DataType::kFloat, Shape{-1}), Error);
  CHECK_THROWS_AS(t.Reshaped(Shape{4, 4}), Error);
  auto ints = Tensor::FromVector<int32_t>(DataType::kInt32, Shape{3}, {4, -1, 0});
  CHECK(ints.ToInt64Vector() == std::vector<int64_t>{4, -1, 0});
  CHECK_THROWS_AS(t.ToInt64Vector(), Error);
}

TEST_CASE("attribute getters name the attribute on a type mismatch", "[core]") {
  AttrMap attrs;
  attrs.Set("axis", int64_t{1});
  CHECK(attrs.GetInt("axis") == 1);
  try {
    attrs.GetFloat("axis");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("'axis'") && Catch::Contains("int") && Catch::Contains("float"));
  }
  CHECK_THROWS_WITH(attrs.GetInts("pads"), Catch::Contains("'pads' is missing"));
}

TEST_CASE("graph editing keeps use lists in sync", "[core]") {
  Graph g("g");
  Value* x = g.AddInput("x", DataType::kFloat, Shape{2});
  Value* c = g.AddConstant("c", Tensor(DataType::kFloat, Shape{2}));
  Node* add = g.AddNode("Add", "add", {x, c});
  Node* relu = g.AddNode("Relu", "relu", {add->output(0)});
  g.SetOutputs({relu->output(0)});

  CHECK(x->uses().size() == 1);
  CHECK(c->constant() != nullptr);
  CHECK(x->constant() == nullptr);
  CHECK(add->output(0)->name() == "add");
  CHECK(g.inputs() == std::vector<Value*>{x});

  // Bypass the Add: relu reads x directly, then the Add is dead.
  g.ReplaceAllUsesWith(add->output(0), x);
  CHECK(x->uses().size() == 2);
  CHECK(g.RemoveDeadNodes() == 2);  // add and the now unused constant
  CHECK(g.FindNode("add") == nullptr);
  CHECK(x->uses().size() == 1);
  CHECK(g.num_nodes() == 2);
}

TEST_CASE("removing a used node is refused", "[core]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{1});
  Node* relu = g.AddNode("Relu", "relu", {x});
  g.SetOutputs({relu->output(0)});
  CHECK_THROWS_WITH(g.RemoveNode(relu), Catch::Contains("'relu'"));
}

TEST_CASE("topological order follows data and control edges and finds cycles", "[core]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{1});
  Node* a = g.AddNode("Relu", "a", {});
  Node* b = g.AddNode("Relu", "b", {x});
  a->SetInput(0, b->output(0));  // a was inserted first but depends on b
  Node* c = g.AddNode("Relu", "c", {x});
  c->AddControlInput(a);
  auto order = g.TopologicalOrder();
  auto pos = [&](Node* n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  CHECK(pos(b) < pos(a));
  CHECK(pos(a) < pos(c));

  b->SetInput(0, a->output(0));  // a <-> b
  CHECK_THROWS_WITH(g.TopologicalOrder(), Catch::Contains("cycle"));
}

TEST_CASE("node names are unique and clones are deep", "[core]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{4});
  Node* r1 = g.AddNode("Relu", "r", {x});
  Node* r2 = g.AddNode("Relu", "r", {r1->output(0)});
  CHECK(r2->name() == "r_1");
  g.SetOutputs({r2->output(0)});
  auto copy = g.Clone();
  REQUIRE(copy->num_nodes() == 3);
  Node* copied = copy->FindNode("r_1");
  REQUIRE(copied != nullptr);
  CHECK(copied != r2);
  CHECK(copied->input(0)->producer() == copy->FindNode("r"));
  CHECK(copy->outputs()[0] == copied->output(0));
  CHECK(copy->inputs()[0]->shape() == Shape{4});

  Graph moved = std::move(*copy);
  CHECK(moved.FindNode("r")->graph() == &moved);
}

TEST_CASE("npy files round-trip and bad files are named", "[core]") {
  auto dir = test::TempDir("npy");
  auto t = Tensor::FromVector<float>(DataType::kFloat, Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  std::string path = (dir / "t.npy").string();
  WriteNpy(path, t);
  Tensor back = ReadNpy(path);
  CHECK(back.shape() == Shape{2, 3});
  CHECK(test::MaxAbsDiff(t, back) == 0.0);

  auto v = Tensor::FromVector<int64_t>(DataType::kInt64, Shape{3}, {7, 8, 9});
  WriteNpy(path, v);
  CHECK(ReadNpy(path).ToInt64Vector() == std::vector<int64_t>{7, 8, 9});

  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 4);
  CHECK_THROWS_WITH(ReadNpy(path), Catch::Contains("t.npy") && Catch::Contains("truncated"));
  { std::ofstream(path) << "hello"; }
  CHECK_THROWS_WITH(ReadNpy(path), Catch::Contains("bad magic"));
  CHECK_THROWS_AS(ReadNpy((dir / "missing.npy").string()), Error);
}

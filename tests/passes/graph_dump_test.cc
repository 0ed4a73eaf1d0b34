#include <catch2/catch.hpp>

#include "passes/pass.h"

namespace ge {

TEST_CASE("DumpGraph prints one typed line per node in topological order") {
  Graph graph("g");
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{1, 4});
  Value* w = graph.AddConstant("w", Tensor(DataType::kFloat, Shape{100, 100}));
  Node* relu = graph.AddNode("Relu", "relu", {x});
  relu->output(0)->set_dtype(DataType::kFloat);
  relu->output(0)->set_shape(Shape{1, Shape::kUnknownDim});
  Node* split = graph.AddNode("SplitVD", "split", {relu->output(0)}, 2);
  split->attrs().Set("size_splits", std::vector<int64_t>{1, 3});
  split->attrs().Set("data_format", std::string("NCHW"));
  split->attrs().Set("epsilon", 0.5f);
  split->attrs().Set("dst_type", DataType::kInt8);
  Node* add = graph.AddNode("Add", "add", {split->output(0), w});
  add->AddInput(nullptr);
  // Inserted last but must come before `relu`: the dump follows data and control edges.
  Node* late = graph.AddNode("Identity", "late", {x});
  relu->AddControlInput(late);
  graph.SetOutputs({add->output(0), split->output(1)});

  std::string expected =
      "graph g\n"
      "inputs: %x:float32[1,4]\n"
      "%x:float32[1,4] = Data[index=0]()  # x\n"
      "%w:float32[100,100] = Const[value=<float32[100,100]>]()  # w\n"
      "%late:undefined[*] = Identity(%x)  # late\n"
      "%relu:float32[1,?] = Relu(%x, ^late)  # relu\n"
      "%split:0:undefined[*], %split:1:undefined[*] = "
      "SplitVD[data_format=\"NCHW\", dst_type=int8, epsilon=0.5, size_splits=[1,3]](%relu)  # split\n"
      "%add:undefined[*] = Add(%split:0, %w, none)  # add\n"
      "outputs: %add:undefined[*], %split:1:undefined[*]\n";
  CHECK(DumpGraph(graph) == expected);
}

}  // namespace ge

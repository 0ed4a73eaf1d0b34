// A scratch graph for running one op's schema at a time in tests.
#pragma once

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "graph/op_schema.h"

namespace ge::test {

class OpTester {
 public:
  Value* Input(Shape shape, DataType dtype = DataType::kFloat) {
    return graph.AddInput("in" + std::to_string(counter_++), dtype, std::move(shape));
  }
  Value* IntConstant(const std::vector<int64_t>& values, DataType dtype = DataType::kInt64) {
    Tensor t(dtype, Shape({static_cast<int64_t>(values.size())}));
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype == DataType::kInt64)
        t.data_as<int64_t>()[i] = values[i];
      else
        t.data_as<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
    return graph.AddConstant("c" + std::to_string(counter_++), t);
  }
  // Adds the node and runs only its inference function: attributes the node
  // lacks must come from the schema defaults.
  Node* Run(const std::string& op_type, const std::vector<Value*>& inputs,
            const std::map<std::string, AttrValue>& attrs = {}, size_t num_outputs = 1) {
    const OpSchema* schema = OpRegistry::Global().Find(op_type);
    REQUIRE(schema != nullptr);
    Node* node = graph.AddNode(op_type, op_type + "_under_test" + std::to_string(counter_++), inputs, num_outputs);
    for (const auto& [name, value] : attrs) node->attrs().Set(name, value);
    InferContext ctx(*node);
    schema->infer()(ctx);
    return node;
  }
  Shape Infer(const std::string& op_type, const std::vector<Value*>& inputs,
              const std::map<std::string, AttrValue>& attrs = {}) {
    return Run(op_type, inputs, attrs)->output(0)->shape();
  }
  // The message of the ge::Error that inference throws; checks that it names the node.
  std::string Error(const std::string& op_type, const std::vector<Value*>& inputs,
                    const std::map<std::string, AttrValue>& attrs = {}, size_t num_outputs = 1) {
    const std::string expected_name = op_type + "_under_test" + std::to_string(counter_);
    try {
      Run(op_type, inputs, attrs, num_outputs);
    } catch (const ge::Error& e) {
      const std::string message = e.what();
      CHECK_THAT(message, Catch::Contains("node '" + expected_name + "' (" + op_type + ")"));
      return message;
    }
    FAIL("inference of " << op_type << " did not throw");
    return {};
  }

  Graph graph{"scratch"};

 private:
  int counter_ = 0;
};

}  // namespace ge::test

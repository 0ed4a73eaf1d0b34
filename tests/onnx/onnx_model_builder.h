// Builds small ONNX models in memory for the importer tests.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge::test {

constexpr int32_t kOnnxFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kOnnxInt64 = onnx::TensorProto::INT64;
constexpr int32_t kOnnxBool = onnx::TensorProto::BOOL;

// dims: -1 becomes a named (symbolic) dim.
onnx::TensorProto OnnxFloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<float>& values);
onnx::TensorProto OnnxInt64Tensor(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& values);

void SetAttr(onnx::NodeProto& node, const std::string& name, int64_t value);
void SetAttr(onnx::NodeProto& node, const std::string& name, float value);
void SetAttr(onnx::NodeProto& node, const std::string& name, const std::string& value);
void SetAttr(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values);
void SetAttr(onnx::NodeProto& node, const std::string& name, const onnx::TensorProto& value);
// A subgraph: the graph of another builder's model (its opset is the outer model's).
void SetAttr(onnx::NodeProto& node, const std::string& name, const onnx::GraphProto& value);

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int opset = 13);

  OnnxModelBuilder& Input(const std::string& name, const std::vector<int64_t>& dims, int32_t elem_type = kOnnxFloat);
  OnnxModelBuilder& Output(const std::string& name, const std::vector<int64_t>& dims, int32_t elem_type = kOnnxFloat);
  OnnxModelBuilder& Initializer(onnx::TensorProto tensor);
  // Adds a node; outputs that are "" stay absent. Returns it for SetAttr.
  onnx::NodeProto& Node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");

  onnx::ModelProto& model() { return model_; }
  std::string Serialize() const;
  void Save(const std::filesystem::path& path) const;
  // ImportOnnxBuffer of the serialized model.
  std::unique_ptr<Graph> Import() const;

 private:
  onnx::ModelProto model_;
};

// The nodes of `graph` with op type `op_type`, in insertion order.
std::vector<Node*> NodesOfType(const Graph& graph, const std::string& op_type);

}  // namespace ge::test

#include "onnx_model_builder.h"

#include <fstream>

#include "ge/onnx_importer.h"

namespace ge::test {
namespace {

void SetValueInfo(onnx::ValueInfoProto& info, const std::string& name, const std::vector<int64_t>& dims,
                  int32_t elem_type) {
  info.set_name(name);
  auto* tensor_type = info.mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(elem_type);
  auto* shape = tensor_type->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* dim = shape->add_dim();
    if (dims[i] < 0) {
      dim->set_dim_param("d" + std::to_string(i));
    } else {
      dim->set_dim_value(dims[i]);
    }
  }
}

onnx::AttributeProto& AddAttr(onnx::NodeProto& node, const std::string& name, onnx::AttributeProto::AttributeType type) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(type);
  return *attr;
}

}  // namespace

onnx::TensorProto OnnxFloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<float>& values) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tensor.add_dims(d);
  tensor.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return tensor;
}

onnx::TensorProto OnnxInt64Tensor(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& values) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) tensor.add_dims(d);
  for (int64_t v : values) tensor.add_int64_data(v);
  return tensor;
}

void SetAttr(onnx::NodeProto& node, const std::string& name, int64_t value) {
  AddAttr(node, name, onnx::AttributeProto::INT).set_i(value);
}
void SetAttr(onnx::NodeProto& node, const std::string& name, float value) {
  AddAttr(node, name, onnx::AttributeProto::FLOAT).set_f(value);
}
void SetAttr(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  AddAttr(node, name, onnx::AttributeProto::STRING).set_s(value);
}
void SetAttr(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  auto& attr = AddAttr(node, name, onnx::AttributeProto::INTS);
  for (int64_t v : values) attr.add_ints(v);
}
void SetAttr(onnx::NodeProto& node, const std::string& name, const onnx::TensorProto& value) {
  *AddAttr(node, name, onnx::AttributeProto::TENSOR).mutable_t() = value;
}

void SetAttr(onnx::NodeProto& node, const std::string& name, const onnx::GraphProto& value) {
  *AddAttr(node, name, onnx::AttributeProto::GRAPH).mutable_g() = value;
}

OnnxModelBuilder::OnnxModelBuilder(int opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("ge-tests");
  auto* import = model_.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model_.mutable_graph()->set_name("test_graph");
}

OnnxModelBuilder& OnnxModelBuilder::Input(const std::string& name, const std::vector<int64_t>& dims,
                                          int32_t elem_type) {
  SetValueInfo(*model_.mutable_graph()->add_input(), name, dims, elem_type);
  return *this;
}

OnnxModelBuilder& OnnxModelBuilder::Output(const std::string& name, const std::vector<int64_t>& dims,
                                           int32_t elem_type) {
  SetValueInfo(*model_.mutable_graph()->add_output(), name, dims, elem_type);
  return *this;
}

OnnxModelBuilder& OnnxModelBuilder::Initializer(onnx::TensorProto tensor) {
  *model_.mutable_graph()->add_initializer() = std::move(tensor);
  return *this;
}

onnx::NodeProto& OnnxModelBuilder::Node(const std::string& op_type, const std::vector<std::string>& inputs,
                                        const std::vector<std::string>& outputs, const std::string& name) {
  auto* node = model_.mutable_graph()->add_node();
  node->set_op_type(op_type);
  node->set_name(name);
  for (const auto& input : inputs) node->add_input(input);
  for (const auto& output : outputs) node->add_output(output);
  return *node;
}

std::string OnnxModelBuilder::Serialize() const { return model_.SerializeAsString(); }

void OnnxModelBuilder::Save(const std::filesystem::path& path) const {
  std::ofstream out(path, std::ios::binary);
  out << Serialize();
}

std::unique_ptr<Graph> OnnxModelBuilder::Import() const {
  const std::string bytes = Serialize();
  return ImportOnnxBuffer(bytes.data(), bytes.size(), "", "test.onnx");
}

std::vector<Node*> NodesOfType(const Graph& graph, const std::string& op_type) {
  std::vector<Node*> result;
  for (Node* node : graph.nodes()) {
    if (node->op_type() == op_type) result.push_back(node);
  }
  return result;
}

}  // namespace ge::test

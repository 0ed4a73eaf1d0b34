// Writes models/demo_cnn.onnx, the small CNN the README's first command runs.
//
// The model is generated rather than downloaded so that the repository can
// rebuild it byte for byte: weights come from a fixed-seed std::mt19937, whose
// raw output sequence the C++ standard pins down (the standard distributions
// are not pinned, so they are not used). tests/cli checks that running this
// program reproduces the committed file exactly.
//
//   input [1,3,32,32]
//   Conv 3->8 3x3 pad 1 -> BatchNormalization -> Relu -> MaxPool 2x2 stride 2   [1,8,16,16]
//   Conv 8->16 3x3 pad 1 -> Relu -> GlobalAveragePool -> Flatten                [1,16]
//   Gemm 16->10 (transB) -> Softmax                                             [1,10] "probabilities"
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace {

constexpr uint32_t kSeed = 20261130;
constexpr int64_t kOpset = 13;

// Uniform in [lo, hi) from the top 24 bits of one mt19937 draw.
class WeightSource {
 public:
  explicit WeightSource(uint32_t seed) : engine_(seed) {}

  std::vector<float> Uniform(size_t count, float lo, float hi) {
    std::vector<float> values(count);
    for (float& v : values) {
      const float unit = static_cast<float>(engine_() >> 8) / static_cast<float>(1u << 24);
      v = lo + (hi - lo) * unit;
    }
    return values;
  }

  // He-uniform initialisation for a layer with the given fan-in, so that
  // activations keep a sensible scale through Relu layers.
  std::vector<float> HeUniform(size_t count, int64_t fan_in) {
    const float limit = std::sqrt(6.0f / static_cast<float>(fan_in));
    return Uniform(count, -limit, limit);
  }

 private:
  std::mt19937 engine_;
};

void AddInitializer(onnx::GraphProto& graph, const std::string& name, const std::vector<int64_t>& dims,
                    const std::vector<float>& values) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tensor->add_dims(d);
  // raw_data is little-endian float32, which is the host layout on every platform ge supports.
  tensor->set_raw_data(values.data(), values.size() * sizeof(float));
}

onnx::NodeProto* AddNode(onnx::GraphProto& graph, const std::string& op_type, const std::string& name,
                         const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* node = graph.add_node();
  node->set_op_type(op_type);
  node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return node;
}

void SetInts(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) attr->add_ints(v);
}

void SetInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

void SetFloat(onnx::NodeProto* node, const std::string& name, float value) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::FLOAT);
  attr->set_f(value);
}

void DeclareFloatTensor(onnx::ValueInfoProto* info, const std::string& name, const std::vector<int64_t>& dims) {
  info->set_name(name);
  onnx::TypeProto_Tensor* type = info->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) type->mutable_shape()->add_dim()->set_dim_value(d);
}

// A 3x3, padding-1 convolution with bias, whose weights are drawn from `source`.
void AddConv3x3(onnx::GraphProto& graph, WeightSource& source, const std::string& name, const std::string& input,
                const std::string& output, int64_t in_channels, int64_t out_channels) {
  const int64_t fan_in = in_channels * 3 * 3;
  AddInitializer(graph, name + ".weight", {out_channels, in_channels, 3, 3},
                 source.HeUniform(static_cast<size_t>(out_channels * fan_in), fan_in));
  AddInitializer(graph, name + ".bias", {out_channels}, source.Uniform(static_cast<size_t>(out_channels), -0.1f, 0.1f));
  onnx::NodeProto* conv = AddNode(graph, "Conv", name, {input, name + ".weight", name + ".bias"}, output);
  SetInts(conv, "kernel_shape", {3, 3});
  SetInts(conv, "pads", {1, 1, 1, 1});
  SetInts(conv, "strides", {1, 1});
}

onnx::ModelProto BuildDemoCnn() {
  WeightSource source(kSeed);
  onnx::ModelProto model;
  model.set_ir_version(7);  // the IR version that goes with opset 13
  model.set_producer_name("ge make_demo_model");
  model.set_producer_version("1");
  model.set_doc_string("ge demo CNN: Conv+BN+Relu+MaxPool+Conv+Relu+GlobalAveragePool+Flatten+Gemm+Softmax");
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpset);

  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("demo_cnn");
  DeclareFloatTensor(graph.add_input(), "image", {1, 3, 32, 32});

  AddConv3x3(graph, source, "conv1", "image", "conv1_out", 3, 8);
  AddInitializer(graph, "bn1.scale", {8}, source.Uniform(8, 0.5f, 1.5f));
  AddInitializer(graph, "bn1.bias", {8}, source.Uniform(8, -0.1f, 0.1f));
  AddInitializer(graph, "bn1.mean", {8}, source.Uniform(8, -0.1f, 0.1f));
  AddInitializer(graph, "bn1.var", {8}, source.Uniform(8, 0.5f, 1.5f));
  onnx::NodeProto* bn = AddNode(graph, "BatchNormalization", "bn1",
                                {"conv1_out", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"}, "bn1_out");
  SetFloat(bn, "epsilon", 1e-5f);
  AddNode(graph, "Relu", "relu1", {"bn1_out"}, "relu1_out");
  onnx::NodeProto* pool = AddNode(graph, "MaxPool", "pool1", {"relu1_out"}, "pool1_out");
  SetInts(pool, "kernel_shape", {2, 2});
  SetInts(pool, "strides", {2, 2});

  AddConv3x3(graph, source, "conv2", "pool1_out", "conv2_out", 8, 16);
  AddNode(graph, "Relu", "relu2", {"conv2_out"}, "relu2_out");
  AddNode(graph, "GlobalAveragePool", "gap", {"relu2_out"}, "gap_out");
  onnx::NodeProto* flatten = AddNode(graph, "Flatten", "flatten", {"gap_out"}, "features");
  SetInt(flatten, "axis", 1);

  AddInitializer(graph, "fc.weight", {10, 16}, source.HeUniform(10 * 16, 16));
  AddInitializer(graph, "fc.bias", {10}, source.Uniform(10, -0.1f, 0.1f));
  onnx::NodeProto* gemm = AddNode(graph, "Gemm", "fc", {"features", "fc.weight", "fc.bias"}, "logits");
  SetInt(gemm, "transB", 1);
  onnx::NodeProto* softmax = AddNode(graph, "Softmax", "softmax", {"logits"}, "probabilities");
  SetInt(softmax, "axis", 1);

  DeclareFloatTensor(graph.add_output(), "probabilities", {1, 10});
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::cerr << "usage: make_demo_model OUTPUT.onnx\n"
                 "Writes the deterministic demo CNN shipped as models/demo_cnn.onnx.\n";
    return argc == 2 ? 0 : 2;
  }
  std::string bytes;
  if (!BuildDemoCnn().SerializeToString(&bytes)) {
    std::cerr << "make_demo_model: error: could not serialize the model\n";
    return 1;
  }
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) {
    std::cerr << "make_demo_model: error: could not write '" << argv[1] << "'\n";
    return 1;
  }
  return 0;
}

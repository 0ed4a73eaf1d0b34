// A structure-aware mutator for ONNX models (libFuzzer's custom mutator hook,
// linked into the libFuzzer build of the ONNX targets only).
//
// Byte-level mutations of a protobuf mostly break its framing, so they test
// the protobuf parser, not ge. This mutator parses the model and changes one
// thing that ge's checks have to stand up to: an attribute value, a dim of an
// input or an initializer, an initializer's dtype or data length, an op type,
// an edge, the opset. Values are drawn from the boundaries that broke
// engines before (0, -1, 2^31, 2^62, ...). One mutation in four, or bytes
// that do not parse, fall back to libFuzzer's own byte mutations.
#include <onnx/onnx_pb.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "fuzz_target.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using Random = std::minstd_rand;

constexpr std::array<int64_t, 16> kBoundaryInts = {
    0, 1, -1, 2, 3, 7, 64, 65537, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
    int64_t{1} << 31, int64_t{1} << 32, int64_t{1} << 62, std::numeric_limits<int64_t>::max(),
    std::numeric_limits<int64_t>::min(), -2};

constexpr std::array<float, 8> kBoundaryFloats = {0.0f, -0.0f, 1e-30f, -1.0f, 1e30f,
                                                   std::numeric_limits<float>::infinity(),
                                                   std::numeric_limits<float>::quiet_NaN(), 1e-7f};

// Op types whose translation and kernels differ most; a node retyped to one
// of them meets inputs and attributes it was not made for.
constexpr std::array<const char*, 24> kOpTypes = {
    "Conv", "ConvTranspose", "MaxPool", "AveragePool", "MatMul", "Gemm", "Transpose", "Reshape",
    "Concat", "Split", "Slice", "Gather", "Resize", "Pad", "ReduceSum", "Softmax",
    "BatchNormalization", "Expand", "Tile", "Add", "LSTM", "TopK", "Einsum", "QuantizeLinear"};

size_t Pick(Random& random, size_t count) { return count == 0 ? 0 : random() % count; }

int64_t BoundaryInt(Random& random) { return kBoundaryInts[Pick(random, kBoundaryInts.size())]; }

void MutateAttribute(onnx::AttributeProto& attribute, Random& random) {
  switch (attribute.type()) {
    case onnx::AttributeProto::INT: attribute.set_i(BoundaryInt(random)); break;
    case onnx::AttributeProto::FLOAT: attribute.set_f(kBoundaryFloats[Pick(random, kBoundaryFloats.size())]); break;
    case onnx::AttributeProto::INTS:
      if (attribute.ints_size() == 0 || random() % 4 == 0) {
        attribute.add_ints(BoundaryInt(random));
      } else if (random() % 4 == 0) {
        attribute.mutable_ints()->RemoveLast();
      } else {
        attribute.set_ints(static_cast<int>(Pick(random, attribute.ints_size())), BoundaryInt(random));
      }
      break;
    case onnx::AttributeProto::STRING: attribute.set_s(attribute.s().substr(0, Pick(random, attribute.s().size() + 1))); break;
    default: attribute.set_type(onnx::AttributeProto::INT); attribute.set_i(BoundaryInt(random)); break;
  }
}

void MutateTypeDims(onnx::ValueInfoProto& value, Random& random) {
  onnx::TensorShapeProto* shape = value.mutable_type()->mutable_tensor_type()->mutable_shape();
  if (shape->dim_size() == 0 || random() % 8 == 0) {
    shape->add_dim()->set_dim_value(BoundaryInt(random));
    return;
  }
  onnx::TensorShapeProto::Dimension* dim = shape->mutable_dim(static_cast<int>(Pick(random, shape->dim_size())));
  if (random() % 4 == 0) {
    dim->set_dim_param("n");
  } else {
    dim->set_dim_value(BoundaryInt(random));
  }
}

void MutateInitializer(onnx::TensorProto& tensor, Random& random) {
  switch (random() % 4) {
    case 0:
      if (tensor.dims_size() > 0) {
        tensor.set_dims(static_cast<int>(Pick(random, tensor.dims_size())), BoundaryInt(random));
      } else {
        tensor.add_dims(BoundaryInt(random));
      }
      break;
    case 1: tensor.set_data_type(static_cast<int32_t>(random() % 24)); break;
    case 2: tensor.mutable_raw_data()->resize(Pick(random, tensor.raw_data().size() + 9)); break;
    default: tensor.add_dims(1); break;
  }
}

void MutateNode(onnx::GraphProto& graph, onnx::NodeProto& node, Random& random) {
  switch (random() % 4) {
    case 0:
      if (node.attribute_size() > 0) {
        MutateAttribute(*node.mutable_attribute(static_cast<int>(Pick(random, node.attribute_size()))), random);
      }
      break;
    case 1: node.set_op_type(kOpTypes[Pick(random, kOpTypes.size())]); break;
    case 2:  // rewire one input to another node's output or a graph input
      if (node.input_size() > 0 && graph.node_size() > 0) {
        const onnx::NodeProto& other = graph.node(static_cast<int>(Pick(random, graph.node_size())));
        if (other.output_size() > 0) {
          node.set_input(static_cast<int>(Pick(random, node.input_size())),
                         other.output(static_cast<int>(Pick(random, other.output_size()))));
        }
      }
      break;
    default:
      if (node.input_size() > 0 && random() % 2 == 0) {
        node.mutable_input()->RemoveLast();
      } else {
        node.add_input(node.input_size() > 0 ? node.input(0) : "");
      }
      break;
  }
}

void MutateModel(onnx::ModelProto& model, Random& random) {
  onnx::GraphProto& graph = *model.mutable_graph();
  switch (random() % 5) {
    case 0:
    case 1:
      if (graph.node_size() > 0) MutateNode(graph, *graph.mutable_node(static_cast<int>(Pick(random, graph.node_size()))), random);
      break;
    case 2:
      if (graph.input_size() > 0) MutateTypeDims(*graph.mutable_input(static_cast<int>(Pick(random, graph.input_size()))), random);
      break;
    case 3:
      if (graph.initializer_size() > 0) {
        MutateInitializer(*graph.mutable_initializer(static_cast<int>(Pick(random, graph.initializer_size()))), random);
      }
      break;
    default:
      if (model.opset_import_size() > 0) model.mutable_opset_import(0)->set_version(1 + static_cast<int64_t>(random() % 22));
      break;
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  Random random(seed);
  onnx::ModelProto model;
  if (random() % 4 == 0 || !model.ParseFromArray(data, static_cast<int>(size))) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  MutateModel(model, random);
  std::string bytes;
  if (!model.SerializeToString(&bytes) || bytes.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}

// Writing TensorFlow GraphDefs in tests: tensors, nodes, attributes.
#pragma once

#include <string>
#include <vector>

#include "graph/tf/proto/tf_graph.pb.h"

namespace ge::test::tf_writer {

inline tf::TensorProto FloatTensor(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  tf::TensorProto t;
  t.set_dtype(tf::DT_FLOAT);
  for (int64_t d : shape) t.mutable_tensor_shape()->add_dim()->set_size(d);
  t.set_tensor_content(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return t;
}

inline tf::TensorProto IntTensor(const std::vector<int64_t>& shape, const std::vector<int32_t>& values) {
  tf::TensorProto t;
  t.set_dtype(tf::DT_INT32);
  for (int64_t d : shape) t.mutable_tensor_shape()->add_dim()->set_size(d);
  for (int32_t v : values) t.add_int_val(v);
  return t;
}

inline void Ints(tf::NodeDef& node, const std::string& attr, const std::vector<int64_t>& values) {
  for (int64_t v : values) (*node.mutable_attr())[attr].mutable_list()->add_i(v);
}

inline tf::NodeDef& Add(tf::GraphDef& g, const std::string& name, const std::string& op, const std::vector<std::string>& inputs) {
  tf::NodeDef& node = *g.add_node();
  node.set_name(name);
  node.set_op(op);
  for (const std::string& input : inputs) node.add_input(input);
  return node;
}

inline void Const(tf::GraphDef& g, const std::string& name, tf::TensorProto value) {
  *(*Add(g, name, "Const", {}).mutable_attr())["value"].mutable_tensor() = std::move(value);
}

// A float32 Placeholder of the given dims (-1: unknown).
inline void Placeholder(tf::GraphDef& g, const std::string& name, const std::vector<int64_t>& dims) {
  tf::NodeDef& node = Add(g, name, "Placeholder", {});
  (*node.mutable_attr())["dtype"].set_type(tf::DT_FLOAT);
  for (int64_t d : dims) (*node.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
}

}  // namespace ge::test::tf_writer

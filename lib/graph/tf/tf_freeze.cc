#include "graph/tf/tf_freeze.h"

#include <fmt/format.h>

#include "ge/error.h"

namespace ge::tf_import {
namespace {

ge::tf::DataType TfDtype(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: return ge::tf::DT_FLOAT;
    case DataType::kInt32: return ge::tf::DT_INT32;
    case DataType::kBool: return ge::tf::DT_BOOL;
    default: return ge::tf::DT_INVALID;
  }
}

}  // namespace

ge::tf::GraphDef FreezeWeights(TfModel model) {
  for (ge::tf::NodeDef& node : *model.graph.mutable_node()) {
    if (node.op() != "Const") continue;
    const auto weight = model.weights.find(node.name());
    if (weight == model.weights.end()) continue;
    const Tensor& tensor = weight->second;
    ge::tf::TensorProto& value = *(*node.mutable_attr())["value"].mutable_tensor();
    value.Clear();
    value.set_dtype(TfDtype(tensor.dtype()));
    for (int64_t d : tensor.shape().dims()) value.mutable_tensor_shape()->add_dim()->set_size(d);
    value.set_tensor_content(std::string(static_cast<const char*>(tensor.data()), tensor.nbytes()));
    (*node.mutable_attr())["dtype"].set_type(value.dtype());
    model.weights.erase(weight);
  }
  if (!model.weights.empty()) {
    throw Error(ErrorCode::kInvalidModel, fmt::format("{}: weight '{}' fills no Const node of the graph", model.origin,
                                                      model.weights.begin()->first));
  }
  return std::move(model.graph);
}

}  // namespace ge::tf_import

// Translation of TensorFlow ops into ge's (tf_importer.cc drives it): what a
// translator sees of one NodeDef, and the table of translators by op type,
// filled by the tf_translate_*.cc families.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ge/builder.h"
#include "graph/tf/proto/tf_graph.pb.h"

namespace ge::tf_import {

class TfNodeContext {
 public:
  TfNodeContext(const ge::tf::NodeDef& node, GraphBuilder& builder, std::vector<Value*> inputs, std::string origin)
      : node_(node), builder_(builder), inputs_(std::move(inputs)), origin_(std::move(origin)) {}

  const ge::tf::NodeDef& node() const { return node_; }
  GraphBuilder& builder() { return builder_; }
  size_t num_inputs() const { return inputs_.size(); }
  // Data input i; fails naming the node when it has fewer.
  Value* input(size_t i) const;
  // The content of data input i when it is a constant, else nullptr.
  const Tensor* constant(size_t i) const;
  // Constant input i as integers; fails when it is not a constant.
  std::vector<int64_t> ConstantInts(size_t i, const std::string& what) const;

  bool Has(const std::string& attr) const { return node_.attr().count(attr) != 0; }
  int64_t Int(const std::string& attr, int64_t fallback) const;
  float Float(const std::string& attr, float fallback) const;
  bool Bool(const std::string& attr, bool fallback) const;
  std::string String(const std::string& attr, const std::string& fallback) const;
  std::vector<int64_t> Ints(const std::string& attr) const;  // empty when absent
  std::vector<std::string> Strings(const std::string& attr) const;
  // A dtype attribute; fails naming the attribute when ge has no such dtype.
  DataType Dtype(const std::string& attr, DataType fallback) const;

  // A name for a node the translation adds: "<node>#<suffix>" ('#' is never
  // in a TensorFlow node name, so it cannot meet one of the model's).
  std::string Name(const std::string& suffix) const { return node_.name() + "#" + suffix; }
  // Adds a ge op named after the node (or `name`).
  Value* Op(const std::string& op_type, const std::vector<Value*>& inputs, const std::map<std::string, AttrValue>& attrs,
            const std::string& name);
  Value* Constant(const std::string& suffix, Tensor value);

  // Throws kInvalidModel "FILE: node 'NAME' (OP): MESSAGE" (kUnsupported with `unsupported`).
  [[noreturn]] void Fail(const std::string& message, bool unsupported = false) const;

 private:
  const ge::tf::NodeDef& node_;
  GraphBuilder& builder_;
  std::vector<Value*> inputs_;
  std::string origin_;
};

// Returns the node's outputs in order.
using TfTranslator = std::function<std::vector<Value*>(TfNodeContext&)>;
using TfTranslators = std::map<std::string, TfTranslator, std::less<>>;

// Every op type the importer translates (Placeholder, Const and NoOp are the importer's own).
const TfTranslators& AllTfTranslators();

// The families, each in its own file.
void AddConvTranslators(TfTranslators& table);   // convolutions and pooling (tf_translate_conv.cc)
void AddMathTranslators(TfTranslators& table);   // elementwise, activations, products, reductions
void AddShapeTranslators(TfTranslators& table);  // Identity, Reshape, Pad, ConcatV2
void AddIndexTranslators(TfTranslators& table);  // slicing, gathering, top-k, packing, casts, comparisons (tf_translate_index.cc)
void AddDetectionTranslators(TfTranslators& table);  // NonMaxSuppressionV3/V4/V5 (tf_translate_detection.cc)
void AddListTranslators(TfTranslators& table);       // TensorList ops as sequences (tf_translate_list.cc)

// The activation a fused op names ("Relu", "Relu6", "Elu", "LeakyRelu",
// "Sigmoid", "Tanh"; "Prelu" with its alpha) applied to x; fails for others.
Value* FusedActivation(TfNodeContext& ctx, const std::string& activation, Value* x, Value* alpha);

}  // namespace ge::tf_import

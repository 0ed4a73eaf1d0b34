// Translation of Caffe layers into ge ops (caffe_importer.cc drives it): what
// a translator sees of one layer, and the translators by layer type.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ge/builder.h"
#include "graph/caffe/proto/caffe_net.pb.h"

namespace ge::caffe_import {

class CaffeLayerContext {
 public:
  CaffeLayerContext(const ge::caffe::LayerParameter& layer, GraphBuilder& builder, std::vector<Value*> bottoms,
                    std::string origin)
      : layer_(layer), builder_(builder), bottoms_(std::move(bottoms)), origin_(std::move(origin)) {}

  const ge::caffe::LayerParameter& layer() const { return layer_; }
  size_t num_bottoms() const { return bottoms_.size(); }
  Value* bottom(size_t i) const;
  // Blob i as a float32 tensor of its shape; fails naming the layer when absent.
  Tensor Blob(size_t i) const;
  size_t num_blobs() const { return static_cast<size_t>(layer_.blobs_size()); }

  // Adds a ge op; `suffix` empty: named after the layer, else "<layer>#<suffix>".
  Value* Op(const std::string& op_type, const std::vector<Value*>& inputs, const std::map<std::string, AttrValue>& attrs,
            const std::string& suffix = "");
  Value* Constant(const std::string& suffix, Tensor value);
  [[noreturn]] void Fail(const std::string& message, bool unsupported = false) const;

 private:
  const ge::caffe::LayerParameter& layer_;
  GraphBuilder& builder_;
  std::vector<Value*> bottoms_;
  std::string origin_;
};

// Returns the layer's tops in order.
using CaffeTranslator = std::function<std::vector<Value*>(CaffeLayerContext&)>;
const std::map<std::string, CaffeTranslator, std::less<>>& CaffeTranslators();

}  // namespace ge::caffe_import

// A TensorFlow.js graph model as a frozen GraphDef: each weight from the
// shards written into its Const node's value (dequantized, as ge reads it).
// The tfjs_to_pb tool writes it as a .pb, and the tests use it to check the
// .pb path on the same trained models as the model.json path.
#pragma once

#include "graph/tf/tf_reader.h"

namespace ge::tf_import {

// `model`'s GraphDef with its weights in the Const nodes; throws
// kInvalidModel naming a weight that no Const node takes.
ge::tf::GraphDef FreezeWeights(TfModel model);

}  // namespace ge::tf_import

#include "runtime/compile/packed_weights.h"

#include <malloc.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "graph/mapped_file.h"

namespace ge::runtime {

void KeepWeightsOnlyPacked(CompiledModel::Impl& impl, const device::Device& device) {
  // Compiled inside another model's build (the rest of a signature whose
  // shapes depend on data, split off its planned head): that model's weights
  // kept packed are this one's too, offered to the kernels it builds later.
  if (device::OfferedPrepackedWeights() != nullptr) {
    impl.kept_packed = device::SharedOfferedPrepackedWeights();
    return;
  }
  auto kept = std::make_shared<device::PrepackedWeights>();
  const std::vector<Value*>& outputs = impl.graph->outputs();
  size_t count = 0;
  for (Node* node : impl.graph->nodes()) {
    // A graph output hands out the constant's value, which must stay plain.
    if (node->op_type() != "Const" ||
        std::find(outputs.begin(), outputs.end(), node->output(0)) != outputs.end()) {
      continue;
    }
    std::optional<device::Device::PackedWeight> packed = device.PackForEveryShape(*node->output(0));
    if (!packed) continue;
    kept->OfferStored(packed->bytes.data(), std::move(packed->layout), packed->packed_bytes);
    // A model loaded from a .gem reads its plain bytes from the mapped file:
    // the pages packing touched are handed back, as a static model's are
    // once its kernels have packed them.
    const Tensor& plain = *node->output(0)->constant();
    if (impl.weights_file && impl.weights_file->Contains(plain.data())) {
      impl.weights_file->ReleasePages(plain.data(), plain.nbytes());
    }
    // The plain bytes go with the last handle on them: this one, unless the
    // caller kept a copy of the constant.
    node->attrs().Set("value", std::move(packed->bytes));
    // Freed among live heap blocks, whose pages free() keeps: handed back
    // now, before the next weight is packed, so that compiling never holds
    // every weight twice (as ReleaseConstantBytes does).
    ::malloc_trim(0);
    ++count;
  }
  if (count == 0) return;
  impl.kept_packed = std::move(kept);
  impl.released_constants += count;
}

}  // namespace ge::runtime

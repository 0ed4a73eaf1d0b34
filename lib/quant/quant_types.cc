#include "quant/quant_types.h"

namespace ge::quant {

const char* QuantDTypeName(QuantDType type) { return type == QuantDType::kInt16 ? "INT16" : "INT8"; }

const char* ActivationAlgoName(ActivationAlgo algo) {
  switch (algo) {
    case ActivationAlgo::kIfmr:
      return "ifmr";
    case ActivationAlgo::kHfmg:
      return "hfmg";
    case ActivationAlgo::kMinMax:
      return "minmax";
  }
  return "ifmr";
}

}  // namespace ge::quant
